#include "splinebench/iir2d/reference.hpp"

#include <algorithm>
#include <cmath>

#include "splinebench/error.hpp"
#include "splinebench/iir2d/strip_order.hpp"

namespace splinebench::iir2d {

namespace {

// The ++ recursion on a buffer already flipped into ++ orientation. Acc is the type
// the sum is carried in; terms are added in (k, l) row-major order, x last.
template <typename Acc, typename In>
std::vector<Acc> forward(const Shape& s, const std::vector<In>& x, const Window& w) {
  const std::int64_t H = s.rows, W = s.cols;
  const int M = w.M;
  std::vector<Acc> bw(w.b.begin(), w.b.end());
  std::vector<Acc> y(static_cast<std::size_t>(H * W));
  for (std::int64_t i = 0; i < H; ++i)
    for (std::int64_t j = 0; j < W; ++j) {
      Acc sum = 0;
      for (int k = 0; k < M && k <= i; ++k) {
        const Acc* yrow = &y[static_cast<std::size_t>((i - k) * W)];
        const Acc* brow = &bw[static_cast<std::size_t>(k) * M];
        for (int l = (k == 0 ? 1 : 0); l < M && l <= j; ++l) sum += brow[l] * yrow[j - l];
      }
      y[static_cast<std::size_t>(i * W + j)] = static_cast<Acc>(x[static_cast<std::size_t>(i * W + j)]) + sum;
    }
  return y;
}

template <typename Acc, typename In>
std::vector<Acc> run(const Shape& s, const std::vector<In>& x, const Window& w, Quadrant q) {
  validate(s, w);
  if (static_cast<std::int64_t>(x.size()) != s.pixels())
    throw Error("iir2d: x has " + std::to_string(x.size()) + " values, H x W = " + std::to_string(s.pixels()));
  const bool f0 = q == Quadrant::mp || q == Quadrant::mm;
  const bool f1 = q == Quadrant::pm || q == Quadrant::mm;
  if (!f0 && !f1) return forward<Acc>(s, x, w);
  return flip(s, forward<Acc>(s, flip(s, x, f0, f1), w), f0, f1);
}

}  // namespace

template <typename T>
std::vector<T> flip(const Shape& s, const std::vector<T>& a, bool axis0, bool axis1) {
  std::vector<T> out(a.size());
  for (std::int64_t i = 0; i < s.rows; ++i)
    for (std::int64_t j = 0; j < s.cols; ++j) {
      const std::int64_t si = axis0 ? s.rows - 1 - i : i, sj = axis1 ? s.cols - 1 - j : j;
      out[static_cast<std::size_t>(i * s.cols + j)] = a[static_cast<std::size_t>(si * s.cols + sj)];
    }
  return out;
}
template std::vector<float> flip(const Shape&, const std::vector<float>&, bool, bool);
template std::vector<double> flip(const Shape&, const std::vector<double>&, bool, bool);

std::vector<double> filter_f64(const Shape& s, const std::vector<float>& x, const Window& w, Quadrant q) {
  return run<double>(s, x, w, q);
}
std::vector<double> filter_f64(const Shape& s, const std::vector<double>& x, const Window& w, Quadrant q) {
  return run<double>(s, x, w, q);
}
std::vector<float> filter_f32(const Shape& s, const std::vector<float>& x, const Window& w, Quadrant q) {
  return run<float>(s, x, w, q);
}

std::vector<float> filter_f32_warp_order(const Shape& s, const std::vector<float>& x, const Window& w) {
  validate(s, w);
  if (static_cast<std::int64_t>(x.size()) != s.pixels())
    throw Error("iir2d: x has " + std::to_string(x.size()) + " values, H x W = " + std::to_string(s.pixels()));
  const int M = w.M, terms = M * M - 1;
  const std::int64_t H = s.rows, W = s.cols;
  std::vector<float> y(x.size());
  for (std::int64_t i = 0; i < H; ++i)
    for (std::int64_t j = 0; j < W; ++j) {
      auto term = [&](int idx, float acc) {
        const int k = idx / M, l = idx - k * M;
        const float v = (i - k >= 0 && j - l >= 0) ? y[static_cast<std::size_t>((i - k) * W + (j - l))] : 0.f;
        return std::fmaf(w.b[static_cast<std::size_t>(idx)], v, acc);
      };
      float lanes[32];
      for (int lane = 0; lane < 32; ++lane) {
        float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
        int t = lane;
        for (; t + 96 < terms; t += 128) {
          a0 = term(t + 1, a0);
          a1 = term(t + 33, a1);
          a2 = term(t + 65, a2);
          a3 = term(t + 97, a3);
        }
        if (t < terms) a0 = term(t + 1, a0);
        if (t + 32 < terms) a1 = term(t + 33, a1);
        if (t + 64 < terms) a2 = term(t + 65, a2);
        lanes[lane] = (a0 + a1) + (a2 + a3);
      }
      // lane_tree_sum: for d = 16 .. 1 with d < terms, lane L adds lane L + d; lane 0 ends with all.
      for (int d = 16; d > 0; d >>= 1)
        if (d < terms)
          for (int lane = 0; lane < d; ++lane) lanes[lane] += lanes[lane + d];
      y[static_cast<std::size_t>(i * W + j)] = x[static_cast<std::size_t>(i * W + j)] + lanes[0];
    }
  return y;
}

// strip_order.hpp spells the order out; this follows it literally, one output at a time.
std::vector<float> filter_f32_strip_order(const Shape& s, const std::vector<float>& x, const Window& w) {
  validate(s, w);
  if (static_cast<std::int64_t>(x.size()) != s.pixels())
    throw Error("iir2d: x has " + std::to_string(x.size()) + " values, H x W = " + std::to_string(s.pixels()));
  const int M = w.M, K = strip_terms_per_warp(M);
  const std::int64_t H = s.rows, W = s.cols, R = kStripRows;
  std::vector<float> y(x.size());
  auto at = [&](std::int64_t i, std::int64_t j) {
    return i >= 0 && j >= 0 ? y[static_cast<std::size_t>(i * W + j)] : 0.f;
  };
  // P(m) of source row `src` for target column j: the row's terms, chain terms left out.
  auto row_terms = [&](std::int64_t src, int m, std::int64_t j) {
    float p = 0.f;
    for (int l = m == 0 ? 2 : (m == 1 ? 1 : 0); l < M; ++l) p = std::fma(w.at(m, l), at(src, j - l), p);
    return p;
  };
  for (std::int64_t t = 0; t < H; ++t)
    for (std::int64_t j = 0; j < W; ++j) {
      float pre = 0.f;
      const std::int64_t top = std::max<std::int64_t>(0, t - (M - 1)) / R;
      for (std::int64_t k = top; k <= t / R; ++k) {  // strips holding a source row, top-down
        float d[kStripWarps];
        for (int wi = 0; wi < kStripWarps; ++wi) {
          d[wi] = 0.f;
          for (int m = wi * K; m < std::min(wi * K + K, M); ++m) {
            const std::int64_t src = t - m;
            if (src >= k * R && src < k * R + R) d[wi] += row_terms(src, m, j);
          }
        }
        static_assert(kStripWarps == 4, "the strip sum below is written for four warps");
        pre += (d[0] + d[1]) + (d[2] + d[3]);
      }
      float v = x[static_cast<std::size_t>(t * W + j)] + pre;
      if (M >= 2) {
        v = std::fma(w.at(0, 1), at(t, j - 1), v);
        v = std::fma(w.at(1, 0), at(t - 1, j), v);
      }
      y[static_cast<std::size_t>(t * W + j)] = v;
    }
  return y;
}

}  // namespace splinebench::iir2d
