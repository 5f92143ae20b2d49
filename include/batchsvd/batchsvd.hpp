// SPDX-License-Identifier: BSD-3-Clause
// batchsvd: singular value decompositions of many matrices at once.
//
// Public C++ API. One call computes the reduced (economy) SVD
//     A_b = U_b * diag(S_b) * V_b^H,   b = 0 .. batch-1,
// of a strided batch of column-major m x n matrices, with k = min(m, n):
//     U_b is m x k, S_b has k real entries sorted in descending order, V_b is n x k.
// Note that V (not V^H) is returned, as in LAPACK's gesvj.
//
// The same call serves every backend: host pointers for the CPU backend, device pointers
// (and a CUDA stream) for the CUDA backend. Backend::automatic looks at where A lives.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "batchsvd/version.hpp"

namespace batchsvd {

using index_t = std::int64_t;

/// Real type underlying a scalar: float for std::complex<float>, etc.
template <class T> struct real_type { using type = T; };
template <class T> struct real_type<std::complex<T>> { using type = T; };
template <class T> using real_t = typename real_type<T>::type;

/// Where the SVD runs.
enum class Backend {
    automatic,  ///< device pointers -> cuda; host pointers -> cuda when a GPU exists
                ///< (staged through device memory), else cpu
    cpu,        ///< OpenMP over the batch; pointers must be host memory
    cuda,       ///< pointers must be device (or managed) memory
};

/// Which Jacobi variant the solver uses. `automatic` chooses per size and backend; the others
/// force one where the matrix allows it (for testing and benchmarking): `blocked` needs
/// min(m, n) above the block width on the CPU, and on CUDA more than 4 rows or columns (the
/// tiny kernel keeps those); `unblocked` on CUDA means the tiny, warp or fused kernel, and
/// matrices too large for them still take the blocked path. On CUDA either one also turns the
/// automatic QR pre-processing off.
enum class JacobiVariant { automatic, unblocked, blocked };

/// QR pre-processing of tall matrices (A = QR, SVD of R, U = Q * U_R).
enum class QrMode { automatic, always, never };

/// Preconditioning of the CUDA backend's blocked path: the Jacobi sweeps start from W V0
/// instead of W, V0 an eigenbasis of W^H W computed in single precision (by the library's own
/// batched eigensolvers; by cuSOLVER's syevBatched / heevBatched past order 512, and for a
/// single matrix past the orders the library's shared-memory forms take: 336 real, 237 complex
/// on an H100) and made orthogonal in the working precision; the iteration then needs far
/// fewer sweeps (1000 x 256^2 float64: 5 instead of 11). The result's accuracy is still the
/// Jacobi iteration's (same convergence test). `automatic` uses it where it measured faster (from
/// order 40 in double precision, 56 in single, up to 4096), and there also sends matrices to
/// the blocked path, up to 4:1, that would otherwise take the fused kernel or QR; `always` and
/// `never` only decide whether a matrix that takes the blocked path is preconditioned. The
/// other CUDA paths ignore the option. The CPU backend preconditions every matrix from order
/// 4 (real) or 10 (complex) under `automatic` (the order is min(m, n)), every one under
/// `always`, none under `never`; its V0 is computed in the working precision, by the
/// library's own eigensolver for real orders up to 64, else by LAPACK's ?syevd / ?heevd (in
/// a build without LAPACK those are not preconditioned).
enum class PreconditionMode { automatic, always, never };

/// How singular values alone (compute_u = compute_v = false) are computed. `jacobi`: the
/// Jacobi iteration without vectors, with its accuracy (relative accuracy on matrices whose
/// columns are graded). `bidiagonal`: bidiagonalisation (gebrd, bidiagonal.hpp) and the
/// bidiagonal's values by bisection, each to a few ulps of the bidiagonal: errors about
/// u ||A||, as LAPACK's ?gesdd values (small values of graded matrices lose relative
/// accuracy); both backends (Backend::automatic with host data takes the CPU backend for it
/// even where a GPU is usable; Backend::cuda or device data the GPU). `automatic`:
/// `bidiagonal` where it measured faster, on the CPU backend real min(m, n) from 24 in
/// double, 32 in single, to 512, complex to 256; on the CUDA backend real min(m, n) from 33
/// within a quarter of square while a matrix fits in a block's shared memory (float64 to
/// about 119^2; docs/bidiagonal.md); else `jacobi`.
/// With U or V requested, `bidiagonal` is invalid_argument and `automatic` is `jacobi`; in
/// gesvd_vbatched each matrix takes the method its size gives (the result it gets alone).
enum class SvdMethod { automatic, jacobi, bidiagonal };

/// Per-matrix status values written to `info`.
///  0       converged;
///  > 0     did not converge within max_sweeps: the value is the number of sweeps run,
///          and the outputs are the best available;
///  < 0     bad input: the matrix holds NaN or Inf (info_nonfinite); its S, U, V are NaN.
inline constexpr int info_nonfinite = -1;

struct Options {
    bool compute_u = true;    ///< write U (m x k)
    bool compute_v = true;    ///< write V (n x k)
    double tol_factor = 30;   ///< k in the convergence test |a_i^H a_j| <= k u ||a_i|| ||a_j||
    int max_sweeps = 100;     ///< sweep limit per matrix (>= 1)
    Backend backend = Backend::automatic;
    JacobiVariant variant = JacobiVariant::automatic;
    QrMode qr = QrMode::automatic;
    int block_width = 0;      ///< blocked variant's block-column width, 0-256 (0 = chosen by the
                              ///< library; the CUDA backend takes 16 for requests up to 16, else 32)
    PreconditionMode precondition = PreconditionMode::automatic;  ///< CUDA blocked path, CPU backend
    SvdMethod method = SvdMethod::automatic;  ///< singular values alone (above)
    /// CPU backend: the OpenMP threads of this call; 0 takes OpenMP's default
    /// (omp_get_max_threads(), which OMP_NUM_THREADS sets). Results do not depend on it. The
    /// CUDA backend uses it only for host pointers in pageable memory: the threads that copy
    /// them through pinned buffers (0: OpenMP's default, at most 16).
    int threads = 0;
    void* stream = nullptr;   ///< cudaStream_t for the CUDA backend (nullptr = default stream)
    /// CUDA devices that share the batch (cuda_devices() for every visible one); empty: the
    /// current device alone. With several devices the batch is cut into one contiguous share
    /// per device, in proportion to the devices' multiprocessor counts, each share solved on a
    /// host thread and a stream of its device's own; every matrix gets bitwise the result it
    /// gets from one device, except on the preconditioned blocked path, whose cuBLAS products
    /// may take other kernels for a share than for the whole batch (the results then agree to
    /// rounding, with the same accuracy). Host data: each share is copied to and from its device directly.
    /// Device data (all operands on one device, the home device, which need not be listed):
    /// the home device's share is solved in place on `stream`, every other share is copied to
    /// its device, by peer copies where the devices allow them, and back, after the work
    /// already queued on `stream`. The call returns when the other devices' shares are back;
    /// the home device's share is ordered on `stream` as for one device. The CUDA backend only.
    std::vector<int> devices;
    /// Optional output: the Jacobi sweeps each matrix took, one int per matrix (indexed as
    /// info), in the same kind of memory as info and written the same way (on the device:
    /// ordered on `stream`, no host synchronisation). Every sweep run counts, the last one
    /// (which found nothing to rotate) included; after QR pre-processing or preconditioning,
    /// the sweeps of the iteration that follows. Empty matrices and matrices with NaN or Inf
    /// take 0. nullptr: not written.
    int* sweeps = nullptr;
};

/// Error codes of thrown errors (not per-matrix status, which goes to `info`).
enum class ErrorCode {
    invalid_argument,     ///< bad sizes, leading dimensions, strides, options or null pointers
    backend_unavailable,  ///< the requested backend is not built in or no device is present
    out_of_memory,        ///< workspace could not be allocated
    device_error,         ///< a CUDA call failed
};

class Error : public std::runtime_error {
public:
    Error(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
    ErrorCode code() const noexcept { return code_; }

private:
    ErrorCode code_;
};

/// A strided batch of column-major matrices: matrix b starts at data + b * stride,
/// element (i, j) of it is at i + j * ld.
template <class T> struct MatrixBatch {
    T* data = nullptr;
    index_t ld = 0;
    index_t stride = 0;
};

/// Reduced SVD of `batch` matrices of size m x n.
///   a:  input, m x n per matrix, ld >= max(1, m); not modified.
///   s:  output, k = min(m, n) values per matrix, `s_stride` >= k apart.
///   u:  output m x k per matrix (ld >= max(1, m)); ignored unless opts.compute_u.
///   v:  output n x k per matrix (ld >= max(1, n)); ignored unless opts.compute_v.
///   info: output, one int per matrix (see info_* above).
/// Matrices may not overlap each other or the outputs. Throws batchsvd::Error on invalid
/// arguments or backend failures; never for a bad matrix (that goes to info).
/// m, n, batch may be zero: nothing is computed, and with batch > 0 every info is 0.
template <class T>
void gesvd(index_t m, index_t n, index_t batch, MatrixBatch<const T> a, real_t<T>* s,
           index_t s_stride, MatrixBatch<T> u, MatrixBatch<T> v, int* info,
           const Options& opts = {});

/// Convenience overload for densely packed batches: lda = m, stride = m * n,
/// U packed m x k, S packed k, V packed n x k.
template <class T>
void gesvd(index_t m, index_t n, index_t batch, const T* a, real_t<T>* s, T* u, T* v,
           int* info, const Options& opts = {});

/// Matrices of different sizes (gesvd_vbatched): matrix b starts at data[b], element (i, j) of
/// it at data[b][i + j * ld[b]]. `data` and `ld` are host arrays of one entry per matrix.
template <class T> struct MatrixList {
    T* const* data = nullptr;
    const index_t* ld = nullptr;
};

/// Reduced SVD of `batch` matrices of different sizes, m[b] x n[b] (each may be 0), in one
/// call: with k_b = min(m[b], n[b]), s[b] receives k_b values, u.data[b] m[b] x k_b,
/// v.data[b] n[b] x k_b, info[b] the status (as gesvd's), opts.sweeps[b] (when set) the
/// sweeps. m, n, the pointer arrays and the leading dimensions are host memory, read before
/// the call returns; the matrices, the values, info and sweeps are all host memory or all
/// device memory, with gesvd's rules for the backend. The call is synchronous either way: it
/// returns when every output is written (device data: after the work already queued on
/// opts.stream, which it waits for on the device; later work on that stream needs no wait).
/// The CPU backend runs the matrices over the threads, largest first, each as gesvd would
/// alone. The CUDA backend solves a size shared by 32 matrices or more as one batch (the
/// result gesvd gives those matrices packed) and the others in size classes, zero-padded
/// (the same accuracy; a matrix with a zero singular value is solved again at its size),
/// several groups at once on library threads and streams, and checks every pointer's memory
/// kind (a few microseconds a matrix). opts.devices must be empty. Invalid sizes, null
/// pointers of non-empty matrices and leading dimensions below the rows are invalid_argument
/// naming the matrix.
template <class T>
void gesvd_vbatched(index_t batch, const index_t* m, const index_t* n, MatrixList<const T> a,
                    real_t<T>* const* s, MatrixList<T> u, MatrixList<T> v, int* info,
                    const Options& opts = {});

/// True when the library was built with the CUDA backend and a CUDA device is usable.
bool cuda_available();

/// Every visible CUDA device, {0, 1, ..., count - 1}; empty without a CUDA backend or device.
std::vector<int> cuda_devices();

/// The CUDA backend keeps the device memory its calls freed (workspaces, staging of host data)
/// in a memory pool of its own on each device, for the next call to reuse instead of mapping
/// it again; it holds at most the largest call's workspace. release_cached_memory() waits for
/// every device the library used and gives that memory back to the driver (for another
/// library to allocate); the environment variable BATCHSVD_CUDA_KEEP_WORKSPACE=0 gives it back
/// at every synchronisation instead. Without the CUDA backend, nothing to do.
void release_cached_memory();

/// Bytes of device memory the CUDA backend's pool holds on `device`, in use by a call or kept
/// for the next one (0 where the library has not allocated there, or without CUDA).
std::size_t cached_memory_bytes(int device);

/// Name of the backend `Backend::automatic` picks for host data ("cuda" or "cpu").
const char* default_backend_name();

/// Human-readable name of a backend.
const char* to_string(Backend b);

/// Library version string, e.g. "0.1.0".
const char* version();

// The four LAPACK precisions are instantiated in the library.
#define BATCHSVD_DECLARE_(T)                                                                  \
    extern template void gesvd<T>(index_t, index_t, index_t, MatrixBatch<const T>,           \
                                  real_t<T>*, index_t, MatrixBatch<T>, MatrixBatch<T>, int*, \
                                  const Options&);                                           \
    extern template void gesvd<T>(index_t, index_t, index_t, const T*, real_t<T>*, T*, T*,   \
                                  int*, const Options&);                                     \
    extern template void gesvd_vbatched<T>(index_t, const index_t*, const index_t*,           \
                                           MatrixList<const T>, real_t<T>* const*, MatrixList<T>, \
                                           MatrixList<T>, int*, const Options&);
BATCHSVD_DECLARE_(float)
BATCHSVD_DECLARE_(double)
BATCHSVD_DECLARE_(std::complex<float>)
BATCHSVD_DECLARE_(std::complex<double>)
#undef BATCHSVD_DECLARE_

}  // namespace batchsvd

#include "batchsvd/bidiagonal.hpp"  // gebrd
#include "batchsvd/hyperbolic.hpp"  // hsvd, eigh_indefinite
