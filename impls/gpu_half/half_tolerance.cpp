#include "gpu_half/half_tolerance.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace splinebench::gpu {

StorageFormat f16_format() { return {"f16", 0x1p-11, 0x1p-25, 65504.0}; }
StorageFormat bf16_format() { return {"bf16", 0x1p-8, 0x1p-134, 0x1.fep127}; }

Tolerance reduced_storage_tolerance(const Tolerance& f32, const GridShape& shape, const StorageFormat& format,
                                    const std::optional<StoredMagnitudes>& measured) {
  const double u = format.unit_roundoff;
  const double delta = format.subnormal_error;
  const double e = f32.prefilter_rel_l2;
  const double prefilter_norm = std::pow(3.0, shape.dims);  // max|c| <= 3^D max|f|
  std::ostringstream basis;
  basis.precision(3);
  double interp = 0, prefilter = 0;
  if (measured && !measured->max_c.empty()) {
    const StoredMagnitudes& m = *measured;
    double worst_ratio = 0, worst_floor = 0;  // max over fields
    bool any_f_known = false;
    for (std::size_t f = 0; f < m.max_c.size(); ++f) {
      const bool f_known = f < m.max_f.size() && m.max_f[f] > 0;
      any_f_known = any_f_known || f_known;
      const double max_f = f_known ? m.max_f[f] : m.max_c[f] / prefilter_norm;
      if (std::isnan(m.max_c[f]) || std::isnan(max_f)) return {NAN, NAN, "non-finite data: no bound"};
      if (m.max_c[f] == 0) continue;  // an all-zero field is stored exactly
      interp = std::max(interp, (u * m.max_c[f] + delta) / max_f);
      worst_ratio = std::max(worst_ratio, m.max_c[f] / max_f);
      const double norm_c = std::sqrt(m.sum_squares_c[f]);
      if (norm_c > 0) worst_floor = std::max(worst_floor, delta * std::sqrt(double(m.values_per_field)) / norm_c);
    }
    prefilter = (u + worst_floor) * (1 + e) + e;
    basis << format.name << " storage: u = " << u << " x max|c|/max|f| (" << worst_ratio
          << (any_f_known ? "" : ", max|f| >= max|c|/3^D") << ", worst field) + subnormal floor " << delta
          << "/max|f|";
  } else {
    interp = u * prefilter_norm;
    prefilter = u * (1 + e) + e;
    basis << format.name << " storage, measure-free: u = " << u << " x 3^D (coefficients in the normal range)";
  }
  basis << " = " << interp << "; read-back coefficients are the stored ones: prefilter (u + subnormal floor) "
        << "x (1 + e) + e; plus the float32 algorithm: " << f32.basis;
  return {prefilter, interp + f32.interp_max_rel_to_maxf, basis.str()};
}

}  // namespace splinebench::gpu
