#include "gpu_common/texture_tolerance.hpp"

#include <cmath>
#include <sstream>
#include <string>

#include "gpu_common/texture_field.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {

Tolerance texture_tolerance(const Tolerance& f32, const GridShape& shape, std::int64_t fields, Mode mode,
                            const std::optional<TextureMagnitudes>& measured) {
  const int D = shape.dims;
  const double prefilter_norm = std::pow(3.0, D);  // max|c| <= 3^D max|f|
  TextureLayout layout;
  double factor = 0;
  try {
    // Without a prepared batch, the layout of one field in the mode that needs the most
    // texels (periodic stores a wrapped copy per filtered axis).
    layout = TextureField::plan(shape, measured ? fields : 1, measured ? mode : Mode::periodic);
    factor = interp_error_factor(layout);
  } catch (const Unsupported& e) {
    Tolerance t = f32;
    t.basis = std::string("texture path cannot take this shape (") + e.what() + "); " + f32.basis;
    return t;
  }
  const double arith_ulps = (8.0 * D + 16.0) * 0x1p-24;  // texture-unit blends and slab-weight products
  double hw = 0, arith = 0;
  std::ostringstream basis;
  if (measured) {
    const bool max_f_known = measured->max_f > 0;
    const double max_f = max_f_known ? measured->max_f : measured->max_c / prefilter_norm;
    hw = factor * measured->max_dc / max_f;
    arith = arith_ulps * measured->max_c / max_f;
    basis << "hardware blend weights: " << factor << " * max|dc| (" << measured->max_dc << ") / max|f| (" << max_f
          << (max_f_known ? "" : ", lower bound max|c|/3^D") << ") = " << hw;
  } else {
    hw = factor * 2.0 * prefilter_norm;
    arith = arith_ulps * prefilter_norm;
    basis << "hardware blend weights, measure-free: " << factor << " * 2 * 3^D = " << hw;
  }
  basis << "; texture arithmetic " << arith << "; texture layout: " << describe(layout)
        << "; plus the float32 algorithm: " << f32.basis;
  return {f32.prefilter_rel_l2, hw + arith + f32.interp_max_rel_to_maxf, basis.str()};
}

}  // namespace splinebench::gpu
