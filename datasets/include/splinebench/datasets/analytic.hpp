// Analytic fields: functions whose exact value is known in double at every point, so a
// study can measure a spline's error against the function itself (convergence order,
// round-off floor), not only against the oracle spline of the same samples.
//
// Every function is defined on all of R^D; its samples are taken on the unit cube
// [0, 1]^D with the position convention of the boundary mode (unit_position), which
// makes the mode's extension of the samples equal to the samples of the function's own
// continuation whenever the function has the matching symmetry. Which functions have
// it for which mode is stated per function (smooth_under) and in datasets/README.md:
// a convergence study needs a function whose extension is smooth, or it measures the
// kink at the boundary instead of the spline.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "splinebench/types.hpp"

namespace splinebench::datasets {

// Where sample k of a line of n samples sits on [0, 1] under `mode` (k may be any real
// grid coordinate, so a query's exact value is value(unit_position(u))):
//   mirror   : x = k / (n - 1)    (n = 1: x = 0). The whole-sample reflections about
//              k = 0 and k = n - 1 are the reflections about x = 0 and x = 1.
//   half     : x = (k + 1/2) / n. The half-sample reflections about k = -1/2 and
//              k = n - 1/2 are the reflections about x = 0 and x = 1.
//   periodic : x = k / n.         Period n in k is period 1 in x.
// So a function even about x = 0 and x = 1 extends smoothly under mirror and half, and
// one with period 1 under periodic.
double unit_position(double k, std::int64_t n, Mode mode);
// Grid spacing on the unit interval for that convention (1/(n-1), 1/n, 1/n; 1 for a
// mirror line of one sample).
double unit_spacing(std::int64_t n, Mode mode);

struct AnalyticFunction {
  std::string_view name;
  std::string_view formula;  // one line, the function as the code computes it
  int min_dims = 1;
  int max_dims = kMaxDims;
  // Per mode (index: mirror, half, periodic): whether the mode's extension of the
  // samples is the function's own smooth continuation (so the spline converges at
  // O(h^4) up to the faces). False means the extension has a kink or a jump at a face:
  // measure such a function away from the faces (the error of a boundary defect decays
  // like |z|^k = 0.268^k, k samples into the grid).
  std::array<bool, 3> smooth_extension{};
  // The function at x (D = dims coordinates, any real values), in double.
  double (*value)(const double* x, int dims) = nullptr;

  bool supports(int dims) const { return dims >= min_dims && dims <= max_dims; }
  bool smooth_under(Mode mode) const { return smooth_extension[static_cast<int>(mode)]; }
};

// Every analytic function, in a fixed order.
const std::vector<AnalyticFunction>& analytic_functions();
// The function called `name`; nullptr when none is.
const AnalyticFunction* find_analytic_function(std::string_view name);
// The function called `name`; throws splinebench::Error listing the known names.
const AnalyticFunction& analytic_function(std::string_view name);

// The function's exact value at grid coordinate u (u[d] in sample units on axis d, any
// real) of a grid of `shape` sampled under `mode`. Throws when `shape.dims` is outside
// the function's dims.
double analytic_value_at(const AnalyticFunction& f, const GridShape& shape, Mode mode, const double* u);

// The function's exact values at n query coordinates laid out (D, n), axis-major, as
// make_queries gives them (grid units, any real values).
std::vector<double> analytic_values_at(const AnalyticFunction& f, const GridShape& shape, Mode mode,
                                       const float* coords, std::int64_t n);

// The samples of f on `shape` under `mode`, in double: every channel of every one of
// `fields` fields holds the same samples (layout as in implementation.hpp).
std::vector<double> sample_analytic_f64(const AnalyticFunction& f, const GridShape& shape, Mode mode,
                                        std::int64_t fields = 1);
// The same samples rounded to float32 (what an f32 implementation is given).
std::vector<float> sample_analytic(const AnalyticFunction& f, const GridShape& shape, Mode mode,
                                   std::int64_t fields = 1);

}  // namespace splinebench::datasets
