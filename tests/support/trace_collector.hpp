#pragma once
// A trace_visitor that keeps every record it is shown: what trace tests compare against.
#include "ktune/trace/trace_file.hpp"

#include <span>
#include <vector>

namespace ktune::test {

struct trace_collector : ktune::trace::trace_visitor {
    std::vector<ktune::trace::kernel_record> kernels;
    std::vector<ktune::trace::memcpy_record> memcpys;
    std::vector<ktune::trace::memset_record> memsets;
    std::vector<ktune::trace::sync_record> syncs;
    std::vector<ktune::trace::nvtx_record> nvtx;
    void on_kernels(std::span<const ktune::trace::kernel_record> r) override {
        kernels.insert(kernels.end(), r.begin(), r.end());
    }
    void on_memcpys(std::span<const ktune::trace::memcpy_record> r) override {
        memcpys.insert(memcpys.end(), r.begin(), r.end());
    }
    void on_memsets(std::span<const ktune::trace::memset_record> r) override {
        memsets.insert(memsets.end(), r.begin(), r.end());
    }
    void on_syncs(std::span<const ktune::trace::sync_record> r) override {
        syncs.insert(syncs.end(), r.begin(), r.end());
    }
    void on_nvtx(std::span<const ktune::trace::nvtx_record> r) override {
        nvtx.insert(nvtx.end(), r.begin(), r.end());
    }
};

} // namespace ktune::test
