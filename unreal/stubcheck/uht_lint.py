#!/usr/bin/env python3
"""Checks the Unreal Header Tool rules a C++ compiler cannot see.

The stand-in headers expand UCLASS, UFUNCTION and the rest to nothing, so a
compiler accepts markup that UHT would reject. This lint reads the plugin's
sources and reports, as FILE:LINE: [rule] message:

  category       every UFUNCTION, and every UPROPERTY exposed to Blueprint or
                 the editor, has a Category
  blueprint-type Blueprint-exposed parameters, return values, properties and
                 dynamic delegate parameters use types Blueprint has (no
                 uint16/uint32/uint64/int8/int16, size_t, std::, raw pointers
                 to non-UObjects, TSharedPtr, ...), enums and structs only if
                 marked BlueprintType
  generated-last the X.generated.h include is the last include of X.h
  generated-body every UCLASS and USTRUCT body has GENERATED_BODY()
  static-library every UFUNCTION of a UBlueprintFunctionLibrary is static
  enum-uint8     a UENUM(BlueprintType) is an enum class over uint8
  delegate-order dynamic delegates are declared after the .generated.h include
  expand-execs   meta ExpandBoolAsExecs / ExpandEnumAsExecs names ReturnValue
                 (of a function that returns something) or a parameter, and
                 that one is a bool (Bool) or a bool or UENUM (Enum)
and three rules of this plugin's design that no compiler sees either:
  outcome-pins   exec pins are expanded from a UENUM (EAstralOutcome: Success
                 and Failure), never from a bool, whose pins read True/False
  task-capture   a lambda given to UE::Tasks::Launch lists its captures (no
                 [=] or [&]) and captures no `this`: background work holds
                 native pointers, never UObjects
  table-include  astral.hpp and astral_bench.hpp are included only after
                 AstralApi.h, which routes their calls through the function table

Usage: uht_lint.py DIR_OR_FILE...   exit 1 if anything is reported.
       uht_lint.py --expectations DIR  the lint's own negative test: every
         line ending in `// expect: rule[, rule]` must be reported with
         exactly those rules, and nothing else may be.
"""

import os
import re
import sys

# ---- Reading ----------------------------------------------------------------


def strip_comments(text):
    """Blanks comments (keeping newlines, so line numbers stay) but not strings."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching(text, i, open_ch, close_ch):
    """Index just past the bracket closing the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_ch:
            depth += 1
        elif text[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def split_top(s, sep=","):
    """Splits at sep outside (), <>, [], {}."""
    parts, depth, cur = [], 0, []
    for c in s:
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return [p.strip() for p in parts]


def specifiers(spec_text):
    """UFUNCTION(BlueprintCallable, Category = "X", meta = (...)) -> {name: value}."""
    out = {}
    for part in split_top(spec_text):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key.strip().lower()] = value.strip()
        elif part:
            out[part.strip().lower()] = True
    return out


class Source:
    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.raw = f.read()
        self.text = strip_comments(self.raw)

    def line(self, offset):
        return self.text.count("\n", 0, offset) + 1

    def macros(self, name):
        """(offset, specifier text, offset after the closing parenthesis) of each NAME(...)."""
        for m in re.finditer(r"\b%s\s*\(" % name, self.text):
            start = m.end() - 1
            end = matching(self.text, start, "(", ")")
            yield m.start(), self.text[start + 1 : end - 1], end


# ---- Types ------------------------------------------------------------------

BLUEPRINT_BASIC = {
    "bool", "uint8", "int32", "int64", "float", "double", "FString", "FName", "FText",
    "FVector", "FVector2D", "FVector4", "FRotator", "FQuat", "FTransform", "FLinearColor",
    "FColor", "FDateTime", "FTimespan", "FGuid", "FIntPoint", "FIntVector", "FBox",
    "FPrimaryAssetId", "FSoftObjectPath", "FGameplayTag", "FGameplayTagContainer", "FKey",
}
CONTAINERS = {"TArray": 1, "TSet": 1, "TMap": 2}
OBJECT_WRAPPERS = {"TSubclassOf", "TObjectPtr", "TSoftObjectPtr", "TSoftClassPtr", "TWeakObjectPtr",
                   "TScriptInterface", "TEnumAsByte"}


class Registry:
    """USTRUCT(BlueprintType) and UENUM(BlueprintType) names seen in the sources."""

    def __init__(self):
        self.structs, self.enums = set(), set()

    def scan(self, src):
        for kind, pattern, target in (
            ("USTRUCT", r"\s*struct\s+(?:[A-Z0-9_]+_API\s+)?(\w+)", self.structs),
            ("UENUM", r"\s*enum\s+(?:class\s+)?(\w+)", self.enums),
        ):
            for _, spec, end in src.macros(kind):
                m = re.match(pattern, src.text[end:])
                if m and "blueprinttype" in specifiers(spec):
                    target.add(m.group(1))


def blueprint_type_problem(type_text, registry):
    """None if type_text is a Blueprint type, else why not."""
    t = re.sub(r"\bconst\b|\bclass\b|\bstruct\b|\benum\b|&", " ", type_text)
    t = re.sub(r"\s+", " ", t).strip()
    pointer = t.endswith("*")
    t = t.rstrip("*").strip()
    m = re.match(r"^(\w+)\s*<(.*)>$", t)
    if m:
        outer, inner = m.group(1), m.group(2)
        if pointer:
            return "pointer to %s" % outer
        if outer in CONTAINERS:
            args = split_top(inner)
            if len(args) != CONTAINERS[outer]:
                return "%s takes %d type(s)" % (outer, CONTAINERS[outer])
            for a in args:
                if re.match(r"^\s*T(Array|Set|Map)\b", a):
                    return "nested container %s" % a
                why = blueprint_type_problem(a, registry)
                if why:
                    return why
            return None
        if outer in OBJECT_WRAPPERS:
            return None
        return "%s is not a Blueprint type" % outer
    if "::" in t:
        return "%s is not a Blueprint type" % t
    if pointer:
        if re.match(r"^[UA][A-Z]\w*$", t) or t == "UObject":
            return None
        return "%s* is a raw pointer to a non-UObject" % t
    if t in BLUEPRINT_BASIC or t in registry.structs or t in registry.enums:
        return None
    if re.match(r"^E[A-Z]\w*$", t):
        return "enum %s is not UENUM(BlueprintType)" % t
    if re.match(r"^F[A-Z]\w*$", t):
        return "struct %s is not USTRUCT(BlueprintType)" % t
    return "%s is not a Blueprint type" % t


def split_param(param):
    """'const TArray<float>& Vector = {}' -> type text (default and name dropped)."""
    return split_param_named(param)[0]


def split_param_named(param):
    """'const TArray<float>& Vector = {}' -> (type text, name)."""
    p = split_top(param, "=")[0].strip()
    p = re.sub(r"\bUPARAM\s*\([^)]*\)", " ", p).strip()
    m = re.match(r"^(.*?)(\w+)\s*$", p, re.S)
    if not m or not m.group(1).strip():
        return p, ""
    return m.group(1).strip(), m.group(2)


def meta_values(spec):
    """UFUNCTION(..., meta = (Key = "A, B", Flag)) -> {key (lower): value without quotes}."""
    raw = specifiers(spec).get("meta")
    if not isinstance(raw, str):
        return {}
    inner = raw.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    out = {}
    for key, value in specifiers(inner).items():
        out[key] = value.strip().strip('"') if isinstance(value, str) else value
    return out


def is_bool_type(type_text):
    return re.sub(r"\bconst\b|&", " ", type_text).strip() == "bool"


def enum_name(type_text):
    """The enum a parameter type names (E..., TEnumAsByte<E...>), else None."""
    t = re.sub(r"\bconst\b|&", " ", type_text).strip()
    m = re.match(r"^TEnumAsByte\s*<\s*(?:\w+::)*(\w+)\s*>$", t)
    return m.group(1) if m else t


# ---- Rules -----------------------------------------------------------------

BLUEPRINT_FUNCTION = ("blueprintcallable", "blueprintpure", "blueprintimplementableevent",
                      "blueprintnativeevent")
BLUEPRINT_PROPERTY = ("blueprintreadonly", "blueprintreadwrite", "blueprintassignable",
                      "blueprintcallable", "blueprintauthorityonly")
EDITOR_PROPERTY = ("editanywhere", "editdefaultsonly", "editinstanceonly", "visibleanywhere",
                   "visibledefaultsonly", "visibleinstanceonly")


class Lint:
    def __init__(self):
        self.problems = []  # (path, line, rule, message)
        self.registry = Registry()

    def report(self, src, offset, rule, message):
        self.problems.append((src.path, src.line(offset), rule, message))

    def check(self, src):
        self.check_includes(src)
        self.check_classes(src)
        self.check_functions(src)
        self.check_properties(src)
        self.check_enums(src)
        self.check_delegates(src)
        self.check_task_captures(src)

    # generated-last, table-include
    def check_includes(self, src):
        includes = [(m.start(), m.group(1)) for m in re.finditer(r'#\s*include\s*[<"]([^">]+)[">]', src.text)]
        base = os.path.splitext(os.path.basename(src.path))[0]
        generated = [(o, name) for o, name in includes if name.endswith(".generated.h")]
        if src.path.endswith(".h") and generated:
            offset, name = generated[-1]
            if name != base + ".generated.h":
                self.report(src, offset, "generated-last", "%s.h includes %s: UHT names it %s.generated.h" % (base, name, base))
            if includes[-1][1] != name:
                self.report(src, includes[-1][0], "generated-last", "%s is included after %s, which must be last" % (includes[-1][1], name))
        names = [name for _, name in includes]
        for offset, name in includes:
            if os.path.basename(name) in ("astral.hpp", "astral_bench.hpp") and base != "AstralApi":
                before = names[: names.index(name)]
                if not any(os.path.basename(b) == "AstralApi.h" for b in before):
                    self.report(src, offset, "table-include",
                                "%s included without AstralApi.h first: its calls would bypass the function table" % name)

    # generated-body, static-library
    def check_classes(self, src):
        for kind, keyword in (("UCLASS", "class"), ("USTRUCT", "struct")):
            for start, _, end in src.macros(kind):
                m = re.match(r"\s*%s\s+(?:[A-Z0-9_]+_API\s+)?(\w+)\s*(?::\s*([^{]*))?\{" % keyword, src.text[end:])
                if not m:
                    self.report(src, start, "generated-body", "%s is not followed by a %s definition" % (kind, keyword))
                    continue
                body_start = end + m.end() - 1
                body_end = matching(src.text, body_start, "{", "}")
                body = src.text[body_start:body_end]
                if not re.search(r"\bGENERATED_(BODY|UCLASS_BODY|USTRUCT_BODY)\s*\(", body):
                    self.report(src, start, "generated-body", "%s %s has no GENERATED_BODY()" % (kind, m.group(1)))
                bases = m.group(2) or ""
                if kind == "UCLASS" and re.search(r"\bUBlueprintFunctionLibrary\b", bases):
                    for fstart, _, fend in src.macros("UFUNCTION"):
                        if body_start < fstart < body_end:
                            decl = src.text[fend : fend + 200]
                            if not re.match(r"\s*static\b", decl):
                                self.report(src, fstart, "static-library",
                                            "UFUNCTION in Blueprint function library %s is not static" % m.group(1))

    # category, blueprint-type (functions)
    def check_functions(self, src):
        for start, spec, end in src.macros("UFUNCTION"):
            s = specifiers(spec)
            if "category" not in s:
                self.report(src, start, "category", "UFUNCTION without a Category")
            if not any(k in s for k in BLUEPRINT_FUNCTION):
                continue
            m = re.match(r"\s*((?:(?:static|virtual|inline|FORCEINLINE)\s+)*)(.*?)\b(\w+)\s*\(", src.text[end:], re.S)
            if not m:
                self.report(src, start, "blueprint-type", "cannot read the declaration after UFUNCTION")
                continue
            return_type, name = m.group(2).strip(), m.group(3)
            params_start = end + m.end() - 1
            params_end = matching(src.text, params_start, "(", ")")
            params = src.text[params_start + 1 : params_end - 1]
            if return_type != "void":
                why = blueprint_type_problem(return_type, self.registry)
                if why:
                    self.report(src, start, "blueprint-type", "%s returns %s: %s" % (name, return_type, why))
            named = {}
            for param in split_top(params):
                if not param:
                    continue
                t, pname = split_param_named(param)
                named[pname] = t
                why = blueprint_type_problem(t, self.registry)
                if why:
                    self.report(src, start, "blueprint-type", "%s takes %s: %s" % (name, param.strip(), why))
            self.check_expand_execs(src, start, spec, name, return_type, named)

    # expand-execs
    def check_expand_execs(self, src, start, spec, name, return_type, params):
        meta = meta_values(spec)
        for key, label in (("expandboolasexecs", "ExpandBoolAsExecs"), ("expandenumasexecs", "ExpandEnumAsExecs")):
            value = meta.get(key)
            if value is None:
                continue
            if not isinstance(value, str) or not value.strip():
                self.report(src, start, "expand-execs", "%s of %s names no parameter" % (label, name))
                continue
            for target in [v.strip() for v in value.split(",") if v.strip()]:
                if target == "ReturnValue":
                    if return_type == "void":
                        self.report(src, start, "expand-execs", "%s of %s names ReturnValue, but it returns void" % (label, name))
                        continue
                    t = return_type
                elif target in params:
                    t = params[target]
                else:
                    self.report(src, start, "expand-execs", "%s of %s names %s, which is not one of its parameters" % (label, name, target))
                    continue
                if label == "ExpandBoolAsExecs":
                    ok = is_bool_type(t)
                else:
                    ok = is_bool_type(t) or enum_name(t) in self.registry.enums
                if not ok:
                    self.report(src, start, "expand-execs", "%s of %s names %s, a %s: %s" % (
                        label, name, target, t, "not a bool" if label == "ExpandBoolAsExecs" else "neither a bool nor a UENUM"))
                elif is_bool_type(t):
                    self.report(src, start, "outcome-pins", "%s of %s expands the bool %s into True/False pins: "
                                "return EAstralOutcome with ExpandEnumAsExecs for Success/Failure" % (label, name, target))

    # category, blueprint-type (properties)
    def check_properties(self, src):
        for start, spec, end in src.macros("UPROPERTY"):
            s = specifiers(spec)
            exposed_bp = any(k in s for k in BLUEPRINT_PROPERTY)
            exposed = exposed_bp or any(k in s for k in EDITOR_PROPERTY)
            if exposed and "category" not in s:
                self.report(src, start, "category", "UPROPERTY exposed without a Category")
            m = re.match(r"\s*(.*?)\b(\w+)\s*(?:=[^;]*)?;", src.text[end:], re.S)
            if not m:
                self.report(src, start, "blueprint-type", "cannot read the declaration after UPROPERTY")
                continue
            t = m.group(1).strip()
            if re.match(r"^(TSharedPtr|TSharedRef|TUniquePtr|TWeakPtr)\b", t) or "std::" in t:
                self.report(src, start, "blueprint-type", "%s cannot be a UPROPERTY" % t)
            elif exposed_bp and "blueprintassignable" not in s:
                why = blueprint_type_problem(t, self.registry)
                if why:
                    self.report(src, start, "blueprint-type", "property %s: %s" % (m.group(2), why))

    # enum-uint8
    def check_enums(self, src):
        for start, spec, end in src.macros("UENUM"):
            if "blueprinttype" not in specifiers(spec):
                continue
            m = re.match(r"\s*enum\s+(class\s+)?(\w+)\s*(?::\s*(\w+))?", src.text[end:])
            if not m or not m.group(1) or m.group(3) != "uint8":
                self.report(src, start, "enum-uint8", "UENUM(BlueprintType) must be `enum class E : uint8`")

    # delegate-order, blueprint-type (delegate parameters)
    def check_delegates(self, src):
        generated = [m.start() for m in re.finditer(r'#\s*include\s*"\w+\.generated\.h"', src.text)]
        for m in re.finditer(r"\bDECLARE_DYNAMIC_(?:MULTICAST_)?DELEGATE\w*\s*\(", src.text):
            if not generated or m.start() < generated[-1]:
                self.report(src, m.start(), "delegate-order", "dynamic delegate declared before the .generated.h include")
            args = split_top(src.text[m.end() : matching(src.text, m.end() - 1, "(", ")") - 1])
            # Name, then (type, name) pairs; the RetVal variants put the return type first.
            pairs = args[2:] if "RetVal" in m.group(0) else args[1:]
            for i in range(0, len(pairs) - 1, 2):
                why = blueprint_type_problem(pairs[i], self.registry)
                if why:
                    self.report(src, m.start(), "blueprint-type", "delegate parameter %s %s: %s" % (pairs[i], pairs[i + 1], why))

    # task-capture
    def check_task_captures(self, src):
        for m in re.finditer(r"\bUE::Tasks::Launch\s*\(", src.text):
            call_end = matching(src.text, m.end() - 1, "(", ")")
            call = src.text[m.end() : call_end]
            for lam in re.finditer(r"\[([^\[\]]*)\]\s*(?:\(|mutable|\{)", call):
                captures = [c.strip() for c in lam.group(1).split(",") if c.strip()]
                for c in captures:
                    if c in ("=", "&"):
                        self.report(src, m.start(), "task-capture", "task lambda captures by default [%s]: list what it holds" % c)
                    elif re.match(r"^\*?this$", c):
                        self.report(src, m.start(), "task-capture", "task lambda captures %s: hold native pointers, never the UObject" % c)


def sources(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in sorted(files):
                    if f.endswith((".h", ".cpp")):
                        yield os.path.join(root, f)
        else:
            yield p


def main(argv):
    expectations = "--expectations" in argv
    paths = [a for a in argv if a != "--expectations"]
    if not paths:
        print(__doc__)
        return 2
    files = [Source(p) for p in sorted(set(sources(paths)))]
    lint = Lint()
    for src in files:
        lint.registry.scan(src)
    for src in files:
        lint.check(src)

    if not expectations:
        for path, line, rule, message in sorted(lint.problems):
            print("%s:%d: [%s] %s" % (path, line, rule, message))
        print("uht_lint: %d file(s), %d problem(s)" % (len(files), len(lint.problems)))
        return 1 if lint.problems else 0

    # Every marked line, and only those, reported with exactly its rules.
    ok = True
    for src in files:
        want = set()
        for number, text in enumerate(src.raw.split("\n"), 1):
            m = re.search(r"//\s*expect:\s*([\w\-, ]+)$", text)
            if m:
                want |= {(number, r.strip()) for r in m.group(1).split(",")}
        got = {(line, rule) for path, line, rule, _ in lint.problems if path == src.path}
        good = got == want
        ok = ok and good
        rules = sorted({r for _, r in want}) or ["none"]
        print("%-8s %-22s %2d expected (%s)" % ("ok" if good else "MISMATCH", os.path.basename(src.path), len(want), ", ".join(rules)))
        for line, rule in sorted(want - got):
            print("         missed   line %d [%s]" % (line, rule))
        for line, rule in sorted(got - want):
            print("         extra    line %d [%s]" % (line, rule))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
