# ktune cache: exit codes and key output on the bundled fixtures (tests/data/cache).
set(_c ${PROJECT_SOURCE_DIR}/tests/data/cache)
set(_out ${CMAKE_CURRENT_BINARY_DIR}/cache_merged.json)
set(_env --arch sm_90 --toolkit 13.0 --driver 580 --op-version v3 --dtype fp16 -f ${_c}/small.json)

ktune_cli_test(cache_ls RC 0 ARGS cache ls ${_c}/small.json
  EXPECT "gemm@v3 fp16 4096x4096 sm_90 cuda13.0 drv580 p1" "block_m=128" "4 of 4 entries")
ktune_cli_test(cache_ls_filter_json RC 0 ARGS cache ls ${_c}/small.json --op softmax --json
  EXPECT "\"schema\": \"ktune.cache.ls\"" "\"version\": \"1.0.0\"" "rowmajor" REJECT "block_m")
ktune_cli_test(cache_get_exact RC 0 ARGS cache get gemm --shape 4096x4096 ${_env}
  EXPECT "exact:" "block_m=128,block_n=256")
ktune_cli_test(cache_get_nearest RC 0 ARGS cache get gemm --shape 1500x1500 ${_env}
  EXPECT "nearest:" "1024x1024" "block_m=64")
ktune_cli_test(cache_get_pow2_bucket RC 0 ARGS cache get gemm --shape 3000x4000 --bucket pow2 ${_env}
  EXPECT "exact:" "4096x4096")
# Another toolkit: the 13.0 entry must not answer, and there is no 13.1 family at all.
ktune_cli_test(cache_get_stale_toolkit RC 1 ARGS cache get gemm --shape 4096x4096 --arch sm_90
  --toolkit 13.1 --driver 580 --op-version v3 --dtype fp16 -f ${_c}/small.json EXPECT "miss")
ktune_cli_test(cache_get_json RC 0 ARGS cache get softmax --shape 8192 --json --arch sm_90
  --toolkit 13000 --driver 580 --op-version a1b2c3d4 -f ${_c}/small.json
  EXPECT "\"schema\": \"ktune.cache.get\"" "\"tier\": \"exact\"" "GPU-11111111")
ktune_cli_test(cache_verify_ok RC 0 ARGS cache verify ${_c}/small.json EXPECT "valid (4 entries)")
ktune_cli_test(cache_verify_truncated RC 2 ARGS cache verify ${_c}/truncated.json
  EXPECT "truncated.json" "byte" "truncated")
ktune_cli_test(cache_verify_bad_field RC 2 ARGS cache verify ${_c}/bad_field.json
  EXPECT "$.entries[3].toolkit")
ktune_cli_test(cache_verify_future RC 2 ARGS cache verify ${_c}/future_major.json EXPECT "2.0.0")
ktune_cli_test(cache_rm_needs_filter RC 2 ARGS cache rm ${_c}/small.json EXPECT "--all")
ktune_cli_test(cache_merge RC 0 ARGS cache merge ${_c}/small.json ${_c}/small.json -o ${_out}
  EXPECT "merged 8 entries from 2 files into 4 entries")
ktune_cli_test(cache_rm RC 0 ARGS cache rm ${_out} --op gemm --toolkit 12080 --json
  EXPECT "\"removed\": 1")
if(TEST cli_cache_merge)
  set_tests_properties(cli_cache_merge PROPERTIES FIXTURES_SETUP cache_merged)
  set_tests_properties(cli_cache_rm PROPERTIES FIXTURES_REQUIRED cache_merged)
endif()
# Without a GPU (every GPU hidden), a key with no --arch/--toolkit/--driver is a usage error
# that says what to give, never a lookup for arch "unknown".
ktune_cli_test(cache_get_no_gpu RC 2 ENV CUDA_VISIBLE_DEVICES=
  ARGS cache get softmax --shape 8192x8192 -f tests/data/cache/small.json
  EXPECT "no CUDA GPU" "give --arch")


# A cache path given explicitly must exist (a typo is not an empty cache).
ktune_cli_test(cache_ls_missing_file RC 2 ARGS cache ls ${_c}/no_such_cache.json
  EXPECT "no_such_cache.json" "check the path")
ktune_cli_test(cache_get_missing_file RC 2 ARGS cache get gemm --shape 4096x4096 --arch sm_90
  --toolkit 13.0 --driver 580 -f ${_c}/no_such_cache.json EXPECT "no_such_cache.json")
ktune_cli_test(cache_verify_missing_file RC 2 ARGS cache verify ${_c}/no_such_cache.json
  EXPECT "no_such_cache.json")
# A damaged file's advice must be something that works: `cache rm` cannot read it either.
ktune_cli_test(cache_verify_advice RC 2 ARGS cache verify ${_c}/bad_field.json
  EXPECT "move it away" REJECT "cache rm")

# Outputs: never over an input, atomic when the command fails (atomic_outputs.cmake).
add_test(NAME cli_atomic_outputs
         COMMAND ${CMAKE_COMMAND} -DKTUNE=$<TARGET_FILE:ktune_cli>
                 -DTRACE=${PROJECT_SOURCE_DIR}/tests/data/metrics/h200_train_loop.ktrace
                 -DCACHE=${_c}/small.json -DWORK=${CMAKE_CURRENT_BINARY_DIR}/atomic_outputs
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/atomic_outputs.cmake)
set_tests_properties(cli_atomic_outputs PROPERTIES LABELS "unit;cli" TIMEOUT 120)
add_test(NAME cli_cache_parallel_merge
         COMMAND ${CMAKE_COMMAND} -DKTUNE=$<TARGET_FILE:ktune_cli>
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/cache_parallel_merge
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/cache_parallel_merge.cmake)
set_tests_properties(cli_cache_parallel_merge PROPERTIES LABELS "unit;cli" TIMEOUT 120)

# The Redis shared tier from the command line (cache_redis.cmake starts its own redis-server).
ktune_cli_test(cache_redis_bad_url RC 2 ARGS cache push ${_c}/small.json --redis localhost:6379
  EXPECT "redis://host:port/db")
add_test(NAME cli_cache_redis
         COMMAND ${CMAKE_COMMAND} -DKTUNE=$<TARGET_FILE:ktune_cli> -DCACHE=${_c}/small.json
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/cache_redis
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/cache_redis.cmake)
set_tests_properties(cli_cache_redis PROPERTIES LABELS "unit;cli" TIMEOUT 120
                                     SKIP_REGULAR_EXPRESSION "SKIPPED:")
