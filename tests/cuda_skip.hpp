// GPU test cases skip, with a message, where no CUDA device exists (CI and the development
// machine have none); they run on a GPU machine through scripts/gpu_check.sh.
#pragma once

#include <gtest/gtest.h>

#include "batchsvd/batchsvd.hpp"

/// Skips the current test when no CUDA device is present; `what` names what is not tested.
#define SKIP_WITHOUT_CUDA(what)                                                                   \
    do {                                                                                          \
        if (!::batchsvd::cuda_available())                                                       \
            GTEST_SKIP() << "no CUDA device on this machine: " what " not run (it runs on a GPU " \
                            "machine, see scripts/gpu_check.sh)";                                 \
    } while (0)
