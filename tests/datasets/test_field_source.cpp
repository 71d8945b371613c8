// Field sources by name (datasets.hpp): what a suite's "data" may say.
#include <gtest/gtest.h>

#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"

using namespace splinebench;
using namespace splinebench::datasets;

TEST(FieldSource, NamesResolveToTheirOrigin) {
  EXPECT_EQ(parse_field_source("noise").origin, FieldSource::Origin::synthetic);
  EXPECT_EQ(parse_field_source("smooth").kind, FieldKind::smooth);
  EXPECT_EQ(parse_field_source("marschner_lobb").origin, FieldSource::Origin::analytic);
  EXPECT_EQ(parse_field_source("sirene_table").origin, FieldSource::Origin::analytic);
  EXPECT_EQ(parse_field_source("camera").origin, FieldSource::Origin::real);
  EXPECT_EQ(parse_field_source("mri_4d").origin, FieldSource::Origin::real);
  EXPECT_EQ(to_string(parse_field_source("stent")), "stent");
  // A FieldKind is a FieldSource, equal to the parsed name.
  const FieldSource from_kind = FieldKind::smooth;
  EXPECT_EQ(from_kind, parse_field_source("smooth"));
  EXPECT_EQ(to_string(from_kind), "smooth");
  EXPECT_EQ(FieldSource{}, parse_field_source("noise"));
}

TEST(FieldSource, UnknownNamesListEveryKnownOne) {
  try {
    parse_field_source("zeros");
    FAIL();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("unknown data 'zeros' (synthetic: noise, smooth; analytic: cos_product, ", 0), 0u) << what;
    EXPECT_NE(what.find("; real: camera, astronaut, "), std::string::npos) << what;
  }
}

TEST(FieldSource, SyntheticFieldsAreThoseOfTheirKindForEveryMode) {
  const GridShape shape = GridShape::make({7, 6}, 2);
  for (FieldKind kind : {FieldKind::noise, FieldKind::smooth})
    for (Mode mode : kAllModes)
      EXPECT_EQ(make_field(FieldSource(kind), shape, 2, 17, mode), make_field(kind, shape, 2, 17));
}
