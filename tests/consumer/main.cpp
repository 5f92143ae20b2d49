// SPDX-License-Identifier: BSD-3-Clause
// Downstream use of the installed library: SVD of a 3x2 matrix with known singular values.
#include <batchsvd/batchsvd.hpp>

#include <cmath>
#include <cstdio>

int main() {
    // A = [3 0; 0 4; 0 0] has singular values 4 and 3
    const double a[6] = {3, 0, 0, 0, 4, 0};
    double s[2], u[6], v[4];
    int info = -99;
    batchsvd::Options opts;
    opts.backend = batchsvd::Backend::cpu;
    batchsvd::gesvd<double>(3, 2, 1, a, s, u, v, &info, opts);
    std::printf("batchsvd %s: S = %g %g, info = %d\n", batchsvd::version(), s[0], s[1], info);
    return (info == 0 && std::fabs(s[0] - 4) < 1e-14 && std::fabs(s[1] - 3) < 1e-14) ? 0 : 1;
}
