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
