// SPDX-License-Identifier: BSD-3-Clause
// The header dict of a .npy file: a strict parser for the Python literal
//     {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
// (keys in any order, whitespace anywhere between tokens, ' or " quotes, trailing commas)
// and NumPy's formatting of it. Internal to batchsvd_npy.
#pragma once

#include <string>
#include <string_view>

#include "npy.hpp"

namespace batchsvd::npy::detail {

struct ParsedDict {
    Header header;
    bool byte_swap = false;  ///< the descr's byte order differs from the host's
};

/// Parses the dict text (the part of the header after the length field). Throws npy::Error.
ParsedDict parse_dict(std::string_view text);

/// NumPy's textual form of a header dict, without padding or newline.
std::string format_dict(const Header& h);

}  // namespace batchsvd::npy::detail
