# SPDX-License-Identifier: MIT
# The fuzz targets replayed without libFuzzer (tests/fuzz/replay.c) on their
# checked-in seeds and on every past finding (regressions/<target>/), in
# every build: make check, make asan, make tsan. Included from
# tests/CMakeLists.txt.
set(GS_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})

# gs_fuzz_replay(TARGET LIBS...): replay_<TARGET> and the ctest fuzz_replay_<TARGET>.
function(gs_fuzz_replay name)
  add_executable(replay_${name} ${GS_FUZZ_DIR}/fuzz_${name}.c ${GS_FUZZ_DIR}/replay.c)
  target_link_libraries(replay_${name} PRIVATE ${ARGN})
  gs_target_warnings(replay_${name})
  # Both directories always: one created later is picked up without a reconfigure.
  add_test(NAME fuzz_replay_${name}
    COMMAND replay_${name} ${GS_FUZZ_DIR}/corpus/${name} ${GS_FUZZ_DIR}/regressions/${name})
  set_tests_properties(fuzz_replay_${name} PROPERTIES LABELS "fuzz;unit" TIMEOUT 300)
endfunction()

gs_fuzz_replay(gscope gs_format gs_trace_pb ZLIB::ZLIB)
gs_fuzz_replay(kineto gs_analyzer gs_import gs_export gs_format gs_pftrace_read)
gs_fuzz_replay(plan gs_analyzer)
gs_fuzz_replay(nsys gs_analyzer gs_import gs_format PkgConfig::SQLITE3)
