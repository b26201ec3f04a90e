#!/usr/bin/env python3
"""Writes the bad-spec corpus: one malformed kernel spec per file under bad/, each a distinct
error of ktune's spec checks, and bad/expected.txt (file, line the error must name, a fragment
of the message). tests/cli/kernel.cmake runs `ktune kernel check` on each. Run from this
directory after changing the base spec or a case; the files are committed."""
import os

BASE = '''{
  "schema": "ktune.kernel",
  "version": "1.0.0",
  "name": "scale",
  "sources": ["k.cu"],
  "kernel": "scale<BLOCK>",
  "dimensions": {"N": 1000},
  "parameters": {
    "BLOCK": {"values": [128, 256], "default": 128},
    "VEC": {"values": [1, 2], "default": 1}
  },
  "restrictions": [
    "BLOCK <= max_threads_per_block"
  ],
  "launch": {
    "grid": ["ceil_div(N, BLOCK * VEC)"],
    "block": ["BLOCK"],
    "shared_bytes": 0
  },
  "defines": {"VEC": "VEC"},
  "arguments": [
    {"name": "x", "kind": "buffer", "dtype": "fp32", "size": "N", "input": "uniform"},
    {"name": "y", "kind": "buffer", "dtype": "fp32", "size": "N", "output": true},
    {"name": "n", "kind": "scalar", "dtype": "int32", "value": "N"}
  ],
  "correctness": {"reference": "default_config", "rtol": 1e-6, "atol": 1e-6},
  "model": {"bytes": "8 * N", "flops": "N"},
  "bucket": {"N": "pow2"}
}
'''

# name: (old, new, text on the line the error must name, fragment of the message)
CASES = {
    "not_json": ('"name": "scale",', '"name": "scale",,', '"name"', "not valid JSON"),
    "unknown_top_key": ('"name": "scale",', '"name": "scale",\n  "kernal": "scale",', '"kernal"', "unknown key 'kernal'"),
    "wrong_schema": ('"ktune.kernel"', '"ktune.cache"', '"schema"', "expected 'ktune.kernel'"),
    "future_version": ('"1.0.0"', '"2.0.0"', '"version"', "not version 1.x"),
    "missing_sources": ('  "sources": ["k.cu"],\n', '', '{', "'sources' is missing"),
    "source_not_found": ('["k.cu"]', '["nope.cu"]', '"sources"', "source file 'nope.cu' not found"),
    "empty_sources": ('["k.cu"]', '[]', '"sources"', "non-empty array of source files"),
    "include_dir_missing": ('"sources": ["k.cu"],', '"sources": ["k.cu"],\n  "include_dirs": ["nowhere"],', '"include_dirs"', "include directory 'nowhere' not found"),
    "bad_kernel_name": ('"scale<BLOCK>"', '"9lives<BLOCK>"', '"kernel"', "is not a kernel name"),
    "template_unclosed": ('"scale<BLOCK>"', '"scale<BLOCK"', '"kernel"', "must end with '>'"),
    "template_unknown_name": ('"scale<BLOCK>"', '"scale<BLOCKZ>"', '"kernel"', "unknown name 'BLOCKZ'"),
    "dimension_not_integer": ('{"N": 1000}', '{"N": "big"}', '"dimensions"', "must be an integer"),
    "dimension_not_positive": ('{"N": 1000}', '{"N": -5}', '"dimensions"', "must be positive"),
    "dimension_is_device_limit": ('{"N": 1000}', '{"N": 1000,\n    "sm_count": 4}', '"sm_count"', "device limit's name"),
    "parameter_not_object": ('"VEC": {"values": [1, 2], "default": 1}', '"VEC": [1, 2]', '"VEC": [1', "must be an object"),
    "parameter_unknown_key": ('"default": 1}', '"default": 1, "step": 2}', '"step"', "unknown key 'step'"),
    "parameter_empty_values": ('"values": [1, 2], "default": 1', '"values": [], "default": 1', '"VEC"', "non-empty array of integers"),
    "parameter_fractional_value": ('[1, 2]', '[1, 2.5]', '"VEC"', "must be an integer"),
    "parameter_value_twice": ('[1, 2]', '[1, 2, 1]', '"VEC"', "listed twice"),
    "default_not_in_values": ('"default": 128', '"default": 100', '"default": 100', "100 is not one of the values"),
    "default_missing": ('"values": [1, 2], "default": 1', '"values": [1, 2]', '"VEC"', "'default' is missing"),
    "parameter_named_like_dimension": ('"VEC": {"values"', '"N": {"values": [1], "default": 1},\n    "VEC": {"values"', '"N": {"values"', "already a dimension"),
    "duplicate_key": ('"VEC": {"values": [1, 2], "default": 1}', '"VEC": {"values": [1, 2], "default": 1},\n    "VEC": {"values": [1], "default": 1}', '"VEC": {"values": [1]}'.replace('}', ', "default": 1}'), "given twice"),
    "restriction_syntax": ('"BLOCK <= max_threads_per_block"', '"BLOCK <= "', '"BLOCK <= "', "expected a number"),
    "restriction_unknown_parameter": ('"BLOCK <= max_threads_per_block"', '"BLOCKS <= max_threads_per_block"', '"BLOCKS', "unknown name 'BLOCKS'"),
    "restriction_unknown_function": ('"BLOCK <= max_threads_per_block"', '"pow(BLOCK, 2) < 100000"', '"pow', "unknown function 'pow'"),
    "restriction_empties_space": ('"BLOCK <= max_threads_per_block"', '"BLOCK <= max_threads_per_block",\n    "BLOCK * VEC > 4096"', '"BLOCK * VEC > 4096"', "leaves no valid config"),
    "restriction_unbalanced": ('"BLOCK <= max_threads_per_block"', '"(BLOCK <= max_threads_per_block"', '"(BLOCK', "to close '('"),
    "restriction_ternary": ('"BLOCK <= max_threads_per_block"', '"BLOCK > 1 ? 1"', '"BLOCK > 1 ? 1"', "expected ':'"),
    "restriction_literal_overflow": ('"BLOCK <= max_threads_per_block"', '"BLOCK < 99999999999999999999"', '"BLOCK < 9', "beyond the int64 range"),
    "restriction_single_equals": ('"BLOCK <= max_threads_per_block"', '"BLOCK = 128"', '"BLOCK = 128"', "unexpected '='"),
    "default_breaks_restriction": ('"BLOCK <= max_threads_per_block"', '"BLOCK >= 256"', '"BLOCK": {', "the default config"),
    "launch_over_thread_limit": ('"block": ["BLOCK"]', '"block": ["BLOCK * 16"]', '"launch"', "exceeds the device limits"),
    "launch_missing_block": ('    "block": ["BLOCK"],\n', '', '"launch"', "'block' is missing"),
    "launch_four_dimensions": ('"block": ["BLOCK"]', '"block": ["BLOCK", 1, 1, 1]', '"block"', "1 to 3 expressions"),
    "launch_unknown_key": ('"shared_bytes": 0', '"shared_bytes": 0,\n    "smem": 0', '"smem"', "unknown key 'smem'"),
    "shared_memory_over_limit": ('"shared_bytes": 0', '"shared_bytes": "300000 * VEC"', '"launch"', "max_shared_bytes_per_block"),
    "cluster_not_dividing_grid": ('"shared_bytes": 0', '"shared_bytes": 0,\n    "cluster": [3]', '"launch"', "not a multiple of cluster"),
    "grid_division_by_zero": ('"ceil_div(N, BLOCK * VEC)"', '"N / (BLOCK - BLOCK)"', '"grid"', "division by zero"),
    "define_bad_macro": ('{"VEC": "VEC"}', '{"VEC": "VEC", "9X": "BLOCK"}', '"defines"', "not a macro name"),
    "define_list_not_parameter": ('{"VEC": "VEC"}', '["VEC", "WIDTH"]', '"defines"', "'WIDTH' is not a parameter"),
    "parameter_unused": ('"VEC": {"values"', '"UNUSED": {"values": [1, 2], "default": 1},\n    "VEC": {"values"', '"UNUSED"', "reaches neither the source"),
    "model_uses_parameter": ('"bytes": "8 * N"', '"bytes": "8 * N * VEC"', '"model"', "is a parameter, but the bytes model"),
    "model_uses_device_limit": ('"flops": "N"', '"flops": "N * sm_count"', '"model"', "is a device limit"),
    "argument_unknown_dtype": ('"dtype": "fp32", "size": "N", "input"', '"dtype": "fp33", "size": "N", "input"', '"name": "x"', "unknown dtype 'fp33'"),
    "argument_unknown_kind": ('"kind": "buffer", "dtype": "fp32", "size": "N", "input"', '"kind": "tensor", "dtype": "fp32", "size": "N", "input"', '"name": "x"', "unknown kind 'tensor'"),
    "argument_unknown_generator": ('"uniform"', '"random"', '"name": "x"', "unknown input generator 'random'"),
    "argument_neither_input_nor_output": ('"size": "N", "input": "uniform"', '"size": "N"', '"name": "x"', "neither an input"),
    "argument_no_output": ('"output": true', '"input": "ones"', '"arguments"', "no buffer is an output"),
    "argument_name_twice": ('{"name": "n"', '{"name": "x"', '"name": "x", "kind": "scalar"', "a second argument named 'x'"),
    "argument_unknown_key": ('"size": "N", "output": true', '"size": "N", "output": true, "layout": "row"', '"name": "y"', "unknown key 'layout'"),
    "scalar_fp32": ('"kind": "scalar", "dtype": "int32"', '"kind": "scalar", "dtype": "fp32"', '"name": "n"', "a scalar's dtype is int32 or int64"),
    "scalar_beyond_int32": ('"value": "N"', '"value": "N * 100000000"', '"name": "n"', "does not fit its dtype int32"),
    "buffer_size_negative": ('"size": "N", "output"', '"size": "N - 2000", "output"', '"name": "y"', "a size must be positive"),
    "buffer_size_overflow": ('"size": "N", "output"', '"size": "N * 4611686018427387904", "output"', '"name": "y"', "overflows int64"),
    "reference_unknown_string": ('"reference": "default_config"', '"reference": "golden"', '"correctness"', "a string reference is"),
    "tolerance_negative": ('"rtol": 1e-6', '"rtol": -1', '"correctness"', "finite number >= 0"),
    "bucket_unknown_dimension": ('{"N": "pow2"}', '{"Q": "pow2"}', '"bucket"', "'Q' is not a dimension"),
    "bucket_unknown_rule": ('{"N": "pow2"}', '{"N": "log2"}', '"bucket"', "unknown bucket rule 'log2'"),
    "compile_option_sets_arch": ('"defines": {"VEC": "VEC"},', '"defines": {"VEC": "VEC"},\n  "compile_options": ["-arch=sm_80"],', '"compile_options"', "comes from --arch"),
    "kernel_not_in_source": ('"scale<BLOCK>"', '"scale_missing<BLOCK>"', '"kernel"', "is not in k.cu"),
    "reference_kernel_not_in_source": ('"reference": "default_config"', '"reference": {"kernel": "scale_nope", "grid": ["N"], "block": [1]}', '"correctness"', "kernel 'scale_nope' is not in k.cu"),
    "reference_over_limits": ('"reference": "default_config"', '"reference": {"kernel": "scale_ref", "grid": [1], "block": ["N * 2"]}', '"correctness"', "the reference kernel's launch"),
    "source_compile_error": ('["k.cu"]', '["broken.cu"]', '"kernel"', "does not compile"),
}


def line_of(text, token):
    at = text.find(token)
    assert at >= 0, token
    return text.count("\n", 0, at) + 1


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    lines = []
    for name, (old, new, token, fragment) in sorted(CASES.items()):
        assert BASE.count(old) == 1, (name, old)
        text = BASE.replace(old, new)
        with open(os.path.join(here, "bad", name + ".json"), "w") as f:
            f.write(text)
        lines.append(f"{name}.json {line_of(text, token)} {fragment}")
    with open(os.path.join(here, "bad", "expected.txt"), "w") as f:
        f.write("# file, the line its error must name, a fragment of the message "
                "(make_bad_specs.py writes this)\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
