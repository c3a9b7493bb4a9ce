# The measurement the Unreal plugin's Automation tests perform
# (examples/cpp/astral_bench.hpp), run for real against libastral. Included from
# tests/c/CMakeLists.txt.
add_executable(unreal_measure "${CMAKE_CURRENT_LIST_DIR}/measure_test.cpp")
set_target_properties(unreal_measure PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
target_link_libraries(unreal_measure PRIVATE Astral::astral_debug Threads::Threads)
# astral_bench.hpp is a measuring harness beside the examples, not API.
target_include_directories(unreal_measure PRIVATE "${PROJECT_SOURCE_DIR}/examples/cpp")
astral_strict(unreal_measure)

# Small: the fixture against the Go recipe, the .fvecs parser, truth and
# query paths, on 5,000 vectors.
add_test(NAME unreal_measure_small COMMAND unreal_measure --n 5000 --nq 16 --runs 3 --threads 1)
set_tests_properties(unreal_measure_small PROPERTIES PASS_REGULAR_EXPRESSION "unreal_measure: PASS")

# The reference workload (100k x 384, 64 queries, 21 runs), with recall
# checked against `astral bench` on `astral fixture`'s .fvecs files. Too slow
# for the sanitizer build, which runs the small one.
if(NOT ASTRAL_SANITIZE)
  add_test(NAME unreal_measure_reference
           COMMAND "${CMAKE_CURRENT_LIST_DIR}/measure_reference.sh" "$<TARGET_FILE:unreal_measure>"
                   "${ASTRAL_GO}" "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_BINARY_DIR}/unreal_measure_reference")
  set_tests_properties(unreal_measure_reference PROPERTIES PASS_REGULAR_EXPRESSION "unreal_measure: PASS"
                       TIMEOUT 300)
endif()

# unreal_async_gc: the plugin's module and async nodes compiled against the
# stand-in engine (ue/, with runtime/ue_runtime.cpp) and run on the real
# libastral: runtime/async_gc_test.cpp drives the async actions through
# garbage collections while their tasks are in flight.
set(ASTRAL_UNREAL_PLUGIN "${PROJECT_SOURCE_DIR}/unreal/AstralPlugin/Source/AstralPlugin")
set(ASTRAL_UNREAL_GENERATED "${CMAKE_CURRENT_BINARY_DIR}/unreal_async_gc_generated")
# UHT's X.generated.h, empty but for the includes every one starts with (as compile.sh makes them).
file(GLOB ASTRAL_UNREAL_HEADERS "${ASTRAL_UNREAL_PLUGIN}/Public/*.h" "${ASTRAL_UNREAL_PLUGIN}/Private/*.h")
foreach(header ${ASTRAL_UNREAL_HEADERS})
  file(STRINGS "${header}" generated_includes REGEX "#include \"[A-Za-z0-9_]+\\.generated\\.h\"")
  foreach(line ${generated_includes})
    string(REGEX REPLACE ".*\"([A-Za-z0-9_]+\\.generated\\.h)\".*" "\\1" generated "${line}")
    # CONFIGURE writes only a changed file: a rewrite at every configure
    # would rebuild every plugin object that includes it.
    file(CONFIGURE OUTPUT "${ASTRAL_UNREAL_GENERATED}/${generated}"
      CONTENT "#pragma once\n#include \"UObject/ObjectMacros.h\"\n#include \"UObject/ScriptMacros.h\"\n")
  endforeach()
endforeach()
file(GLOB ASTRAL_UNREAL_SOURCES "${ASTRAL_UNREAL_PLUGIN}/Private/*.cpp")
# unreal_async_gc and unreal_nodes: the module's sources on the stand-in engine, each with its test.
function(astral_unreal_runtime_test name test_source)
  add_executable(${name} ${ASTRAL_UNREAL_SOURCES} "${CMAKE_CURRENT_LIST_DIR}/runtime/ue_runtime.cpp" "${test_source}")
  set_target_properties(${name} PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_include_directories(${name} SYSTEM PRIVATE "${CMAKE_CURRENT_LIST_DIR}/ue" "${ASTRAL_UNREAL_GENERATED}"
    "${PROJECT_SOURCE_DIR}/unreal/AstralPlugin/Source/ThirdParty/AstralLibrary/include")
  target_include_directories(${name} PRIVATE "${ASTRAL_UNREAL_PLUGIN}/Public" "${ASTRAL_UNREAL_PLUGIN}/Private"
    "${CMAKE_CURRENT_LIST_DIR}/runtime")
  # An editor target's switches, the Automation tests compiled out (they need the engine's framework).
  target_compile_definitions(${name} PRIVATE ASTRALPLUGIN_API= PLATFORM_LINUX=1 WITH_EDITOR=1 WITH_EDITORONLY_DATA=1
    UE_EDITOR=1 UE_GAME=0 IS_MONOLITHIC=0 UE_BUILD_DEBUG=0 UE_BUILD_DEVELOPMENT=1 UE_BUILD_TEST=0 UE_BUILD_SHIPPING=0
    WITH_DEV_AUTOMATION_TESTS=0 "ASTRAL_LIBRARY_PATH=\"Binaries/ThirdParty/Astral/Linux/libastral.so\"")
  target_compile_options(${name} PRIVATE -fno-exceptions -fno-rtti -Wall -Wextra -Werror)
  target_link_libraries(${name} PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
  # It dlopens the library, which the sanitizer build instruments: the ASan
  # runtime must then come first, in the program (UBSan's vptr check needs
  # RTTI, which Unreal's flags turn off, so only ASan here).
  if(ASTRAL_SANITIZE)
    target_compile_options(${name} PRIVATE -fsanitize=address -fno-omit-frame-pointer)
    target_link_options(${name} PRIVATE -fsanitize=address)
  endif()
  add_dependencies(${name} Astral::astral)
  # The module loads the library from the plugin's folder, as in a game.
  add_test(NAME ${name}
           COMMAND sh -c "dir=\"$1\" && mkdir -p \"$dir/Binaries/ThirdParty/Astral/Linux\" \"$dir/Saved\" && cp -L \"$2\" \"$dir/Binaries/ThirdParty/Astral/Linux/libastral.so\" && exec \"$3\" \"$dir\""
                   sh "${CMAKE_CURRENT_BINARY_DIR}/${name}_plugin" "$<TARGET_FILE:Astral::astral>" "$<TARGET_FILE:${name}>")
  set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${name}: PASS" TIMEOUT 120)
  if(ASTRAL_SANITIZE)
    # The stand-in engine, like the real one, keeps the objects it has not
    # collected until the process ends: no leak check, every other ASan check.
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1")
  endif()
endfunction()
astral_unreal_runtime_test(unreal_async_gc "${CMAKE_CURRENT_LIST_DIR}/runtime/async_gc_test.cpp")
# The scoped-query and key nodes, through the scenario the Automation test runs.
astral_unreal_runtime_test(unreal_nodes "${CMAKE_CURRENT_LIST_DIR}/runtime/nodes_test.cpp")
