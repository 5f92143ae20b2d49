// SPDX-License-Identifier: BSD-3-Clause
#include "cuda/multi_gpu/nccl_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "batchsvd/batchsvd.hpp"

namespace batchsvd::cuda {

namespace {

struct Loaded {
    NcclApi api{};
    bool ok = false;
    std::string tried;  ///< where it was looked for, for the error message
};

template <class F> bool bind(void* lib, const char* name, F& f) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    return f != nullptr;
}

Loaded load() {
    Loaded l;
    std::vector<std::string> names;
    if (const char* v = std::getenv("BATCHSVD_NCCL_LIBRARY"); v && *v) names.emplace_back(v);
    names.emplace_back("libnccl.so.2");
#ifdef BATCHSVD_NCCL_HINT
    names.emplace_back(std::string(BATCHSVD_NCCL_HINT) + "/libnccl.so.2");
#endif
    for (const std::string& name : names) {
        l.tried += (l.tried.empty() ? "" : ", ") + name;
        void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib) continue;
        NcclApi& a = l.api;
        const bool all = bind(lib, "ncclGetVersion", a.GetVersion) && bind(lib, "ncclGetUniqueId", a.GetUniqueId) &&
                         bind(lib, "ncclCommInitRank", a.CommInitRank) && bind(lib, "ncclCommInitAll", a.CommInitAll) &&
                         bind(lib, "ncclCommDestroy", a.CommDestroy) && bind(lib, "ncclCommAbort", a.CommAbort) &&
                         bind(lib, "ncclCommGetAsyncError", a.CommGetAsyncError) &&
                         bind(lib, "ncclGetErrorString", a.GetErrorString) && bind(lib, "ncclGroupStart", a.GroupStart) &&
                         bind(lib, "ncclGroupEnd", a.GroupEnd) && bind(lib, "ncclSend", a.Send) &&
                         bind(lib, "ncclRecv", a.Recv) && bind(lib, "ncclAllReduce", a.AllReduce) &&
                         bind(lib, "ncclBroadcast", a.Broadcast);
        if (all) {
            l.ok = true;
            return l;  // (kept loaded for the process)
        }
        l.tried += " (lacks a function)";
        dlclose(lib);
    }
    return l;
}

const Loaded& loaded() {
    static const Loaded l = load();
    return l;
}

}  // namespace

bool nccl_available() { return loaded().ok; }

const NcclApi& nccl() {
    const Loaded& l = loaded();
    if (!l.ok)
        throw Error(ErrorCode::backend_unavailable,
                    "batchsvd: one matrix over several devices needs NCCL, not found (looked for " + l.tried +
                        "; set BATCHSVD_NCCL_LIBRARY to libnccl.so.2, or pip install nvidia-nccl-cu13)");
    return l.api;
}

void nccl_check(ncclResult_t r, const char* what) {
    if (r == ncclSuccess) return;
    const char* msg = loaded().ok ? loaded().api.GetErrorString(r) : "NCCL not loaded";
    throw Error(ErrorCode::device_error, std::string("batchsvd CUDA backend: ") + what + " failed: " + msg);
}

}  // namespace batchsvd::cuda
