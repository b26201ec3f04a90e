# The profile store from the command line: ingest (idempotent), backlog, regressions, errors.
set(_db "sqlite:${CMAKE_CURRENT_BINARY_DIR}/store_cli/ktune.db")
add_test(NAME cli_store_clean COMMAND ${CMAKE_COMMAND} -E rm -rf
                                      ${CMAKE_CURRENT_BINARY_DIR}/store_cli)
set_tests_properties(cli_store_clean PROPERTIES FIXTURES_SETUP store_clean LABELS "unit;cli")
ktune_cli_test(store_ingest RC 0 ARGS ingest --db ${_db} --build b1
  examples/data/transformer_layer_h200.ktrace
  tests/data/metrics/h200_transformer_layer.metrics.ktrace
  EXPECT "stored run b9c67790f585" "10 verdicts" REJECT "already stored")
set_tests_properties(cli_store_ingest PROPERTIES FIXTURES_REQUIRED store_clean
                                                 FIXTURES_SETUP store_db)
ktune_cli_test(store_ingest_again RC 0 ARGS ingest --db ${_db} --json
  examples/data/transformer_layer_h200.ktrace
  EXPECT "\"already_stored\": 1" "\"schema\": \"ktune.ingest\"")
ktune_cli_test(store_backlog RC 0 ARGS backlog --db ${_db} --limit 10
  EXPECT "2 runs" "nvjet_sm90_tst_256x128" "compute" "tunable as layernorm")
ktune_cli_test(store_backlog_json RC 0 ARGS backlog --db ${_db} --build b1 --json
  EXPECT "\"schema\": \"ktune.backlog\"" "\"savable_ns\"")
ktune_cli_test(store_regressions_unknown_build RC 2 ARGS regressions --db ${_db}
  --baseline b1 --candidate nope EXPECT "no runs of build 'nope'")
set_tests_properties(cli_store_ingest_again cli_store_backlog cli_store_backlog_json
  cli_store_regressions_unknown_build PROPERTIES FIXTURES_REQUIRED store_db)
ktune_cli_test(store_ingest_not_a_trace RC 2 ARGS ingest --db ${_db}x README.md
  EXPECT "README.md: not a .ktrace file")
ktune_cli_test(store_bad_scheme RC 2 ARGS backlog --db mysql://db EXPECT "unknown scheme")
# Run sampling: a rank outside --ranks runs unprofiled, with the program's exit code.
ktune_cli_test(profile_rank_not_sampled RC 3 ENV RANK=0 ARGS profile --ranks 1-3 -- sh -c "exit 3"
  EXPECT "not profiled: rank 0 is not in --ranks 1-3")
