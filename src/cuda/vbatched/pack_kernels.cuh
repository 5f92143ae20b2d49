// SPDX-License-Identifier: BSD-3-Clause
// gesvd_vbatched's copies between the caller's matrices (a leading dimension each) and a
// group's packed batch (size_classes.hpp): gather (zero padding, conjugate transposition for
// the wide members of a class) and scatter (S, U, V, info, sweeps, and the flag of a padded
// member with a zero singular value, which is solved again at its exact size).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/common/check.hpp"
#include "cuda/common/kernel_common.cuh"

namespace batchsvd::cuda::vbatched {

/// One member of a group: the caller's operands (null where not computed or k = 0), its index
/// in the call and its shape in the packed batch (n x m when the group is transposed).
struct Entry {
    const void* a;
    index_t lda;
    void* s;
    void* u;
    index_t ldu;
    void* v;
    index_t ldv;
    index_t index;
    index_t rows, cols;
};

/// Packed member j: rows x cols, leading dimension rows, rows * cols apart; the member's block
/// in its top left corner, zeros elsewhere. Grid: x over elements, y over members.
template <class DT, bool Transpose>
__global__ void gather_kernel(const Entry* entries, index_t count, index_t rows, index_t cols, DT* packed) {
    for (index_t j = blockIdx.y; j < count; j += gridDim.y) {
        const Entry& e = entries[j];
        const DT* a = static_cast<const DT*>(e.a);
        DT* p = packed + j * rows * cols;
        for (index_t idx = index_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < rows * cols;
             idx += index_t(gridDim.x) * blockDim.x) {
            const index_t r = idx % rows, c = idx / rows;
            DT x{};
            if (r < e.rows && c < e.cols) x = Transpose ? core::conj_of(a[c + r * e.lda]) : a[r + c * e.lda];
            p[idx] = x;
        }
    }
}

/// The packed results of member j back to the caller: k = min(e.rows, e.cols) values, the left
/// vectors' first e.rows rows (U, or V when transposed), the right vectors' first e.cols rows;
/// info and sweeps at the member's index. flags[j] = 1 (flags zeroed by the caller) for a
/// padded member with a zero value among its first k, or with a non-zero entry in the padding
/// rows of its first k left or right vectors (which exact padding leaves zero:
/// size_classes.hpp). kk = min(rows, cols) columns per member.
template <class DT>
__global__ void scatter_kernel(const Entry* entries, index_t count, index_t rows, index_t cols, bool transpose,
                               const core::real_of_t<DT>* ps, const DT* pl, const DT* pr, const int* pinfo,
                               const int* psweeps, int* info, int* sweeps, int* flags) {
    using R = core::real_of_t<DT>;
    const index_t kk = std::min(rows, cols);
    for (index_t j = blockIdx.y; j < count; j += gridDim.y) {
        const Entry& e = entries[j];
        const index_t k = std::min(e.rows, e.cols);
        const bool padded = e.rows < rows || e.cols < cols;
        const index_t first = index_t(blockIdx.x) * blockDim.x + threadIdx.x, step = index_t(gridDim.x) * blockDim.x;
        R* s = static_cast<R*>(e.s);
        for (index_t c = first; c < k; c += step) {
            const R x = ps[j * kk + c];
            s[c] = x;
            if (padded && x == R(0)) flags[j] = 1;
        }
        if (first == 0) {
            info[e.index] = pinfo[j];
            if (sweeps) sweeps[e.index] = psweeps[j];
        }
        if (padded) {  // the padding rows of the first k vectors: exactly zero, or solved again
            const index_t pl_rows = rows - e.rows, pr_rows = cols - e.cols;
            if (pl)
                for (index_t idx = first; idx < pl_rows * k; idx += step)
                    if (core::abs2(pl[j * rows * kk + e.rows + idx % pl_rows + (idx / pl_rows) * rows]) != R(0)) flags[j] = 1;
            if (pr)
                for (index_t idx = first; idx < pr_rows * k; idx += step)
                    if (core::abs2(pr[j * cols * kk + e.cols + idx % pr_rows + (idx / pr_rows) * cols]) != R(0)) flags[j] = 1;
        }
        DT* left = static_cast<DT*>(transpose ? e.v : e.u);
        const index_t ldl = transpose ? e.ldv : e.ldu;
        if (pl && left)
            for (index_t idx = first; idx < e.rows * k; idx += step)
                left[idx % e.rows + (idx / e.rows) * ldl] = pl[j * rows * kk + idx % e.rows + (idx / e.rows) * rows];
        DT* right = static_cast<DT*>(transpose ? e.u : e.v);
        const index_t ldr = transpose ? e.ldu : e.ldv;
        if (pr && right)
            for (index_t idx = first; idx < e.cols * k; idx += step)
                right[idx % e.cols + (idx / e.cols) * ldr] = pr[j * cols * kk + idx % e.cols + (idx / e.cols) * cols];
    }
}

/// info = 0 and sweeps = 0 for the members of a group with nothing to decompose.
__global__ void empty_status_kernel(const Entry* entries, index_t count, int* info, int* sweeps) {
    for (index_t j = index_t(blockIdx.x) * blockDim.x + threadIdx.x; j < count; j += index_t(gridDim.x) * blockDim.x) {
        info[entries[j].index] = 0;
        if (sweeps) sweeps[entries[j].index] = 0;
    }
}

/// Launch shape: x over a member's elements (at most 64 blocks of 256), y over the members.
inline dim3 pack_grid(index_t elements, index_t count) {
    return dim3(unsigned(std::clamp<index_t>((elements + 255) / 256, 1, 64)), unsigned(std::clamp<index_t>(count, 1, 65535)));
}

}  // namespace batchsvd::cuda::vbatched
