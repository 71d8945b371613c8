#include "splinebench/datasets.hpp"
#include "splinebench/datasets/analytic.hpp"
#include "splinebench/datasets/real.hpp"
#include "splinebench/error.hpp"

namespace splinebench::datasets {

FieldSource::FieldSource(FieldKind synthetic) : kind(synthetic), name(to_string(synthetic)) {}

std::string_view to_string(const FieldSource& source) { return source.name; }

FieldSource parse_field_source(std::string_view text) {
  FieldSource s;
  s.name = std::string(text);
  if (text == "noise" || text == "smooth") {
    s.kind = parse_field_kind(text);
  } else if (find_analytic_function(text)) {
    s.origin = FieldSource::Origin::analytic;
  } else if (find_real_dataset(text)) {
    s.origin = FieldSource::Origin::real;
  } else {
    std::string analytic, real;
    for (const auto& f : analytic_functions()) analytic += ", " + std::string(f.name);
    for (const auto& r : real_datasets()) real += ", " + std::string(r.name);
    throw Error("unknown data '" + std::string(text) + "' (synthetic: noise, smooth; analytic: " + analytic.substr(2) +
                "; real: " + real.substr(2) + ")");
  }
  return s;
}

std::vector<float> make_field(const FieldSource& source, const GridShape& shape, std::int64_t fields,
                              std::uint64_t seed, Mode mode) {
  switch (source.origin) {
    case FieldSource::Origin::synthetic: return make_field(source.kind, shape, fields, seed);
    case FieldSource::Origin::analytic:
      return sample_analytic(analytic_function(source.name), shape, mode, fields);
    case FieldSource::Origin::real: {
      const RealDataset data = load_real_dataset(source.name);
      const GridShape own = real_field_shape(data.info);
      if (!(own == shape))
        throw Error("real dataset '" + source.name + "' is " + own.to_string() + " with " +
                    std::to_string(own.channels) + " channel(s); asked for " + shape.to_string() + " with " +
                    std::to_string(shape.channels));
      return real_field(data, fields);
    }
  }
  throw Error("make_field: unknown field source");
}

}  // namespace splinebench::datasets
