# Astral: `make bench` builds and runs the reference benchmark; `make test`
# runs every test. Both install what a fresh Debian machine lacks first.
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)
GO ?= go
BIN := build/astral
FUZZTIME ?= 5s

.PHONY: all build bench deps lib vet test test-go test-race test-noasm test-arm64 test-c test-unreal fuzz-short fuzz clean

all: build

deps:
	@scripts/install-deps.sh

build:
	$(GO) build ./...
	$(GO) build -o $(BIN) ./cmd/astral

# libastral: build/libastral.so (SONAME libastral.so.0), build/libastral.a,
# build/include/, and build/windows/astral.dll (mingw-w64).
lib: deps
	scripts/build-lib.sh

# The reference workload (BENCH.md): 100k × 384 random, serial and 1 worker + caller.
bench: deps build
	./$(BIN) bench --data random --index flat --threads 0,1 --batch 1,16 --json build/bench-random.json

vet:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './build/*')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

test: deps vet test-go test-race test-noasm test-c test-unreal test-arm64 fuzz-short

test-go:
	$(GO) test -count=1 ./...

test-race:
	$(GO) test -count=1 -race -short ./...

# Pure Go everywhere: the reference kernels and the fallback for other CPUs.
test-noasm:
	$(GO) test -count=1 -tags noasm ./...

# The C ABI: CTest suite (also under ASan/UBSan), header/export drift,
# DLL export table, CMake package, recall_p50 against astral bench.
test-c:
	scripts/test-capi.sh

# The Unreal plugin without the engine: stand-in UE headers compile every
# plugin .cpp (Linux, Mac, Win64), known mistakes must fail, a lint for the
# Header Tool's rules, Build.cs evaluated, the Automation tests'
# measurement run for real in CTest.
test-unreal:
	scripts/test-unreal.sh

# The arm64 build: NEON kernel words checked with objdump, test binaries
# run under qemu-aarch64, darwin/arm64 build.
test-arm64:
	scripts/test-arm64.sh

# Each fuzz target briefly; `make fuzz FUZZTIME=5m` for longer.
FUZZ_TARGETS := ./kernel:FuzzEncodeE5M2 ./kernel:FuzzImplsAgree ./kernel:FuzzKindsAgree ./internal/crc32c:FuzzUpdate ./internal/fixture:FuzzReadFvecs ./astral:FuzzLoad ./astral:FuzzRoundTrip
fuzz-short fuzz:
	@GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh $(FUZZ_TARGETS)

clean:
	rm -rf build
