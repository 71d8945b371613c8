// Shards (runner/shard.hpp): the partition covers every case once for N = 1..7, gives
// every shard the same answer, balances the expected work; a sharded run exposes its
// cases, sweeps and records in the plan's order; bad "I/N" texts are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "splinebench/error.hpp"
#include "splinebench/runner/shard.hpp"

namespace {

using nlohmann::json;
using splinebench::runner::PlannedCase;
using splinebench::runner::PlannedSweep;
using splinebench::runner::Shard;
using splinebench::runner::SkipKind;
using splinebench::runner::SystemRun;

std::vector<PlannedCase> some_cases(int n) {
  std::vector<PlannedCase> cases;
  for (int i = 0; i < n; ++i) {
    PlannedCase c;
    c.id = "case" + std::to_string(i);
    c.impl = i % 2 ? "a" : "b";
    c.work = 1.0 + (i * 37 % 11) * (i % 3 == 0 ? 100.0 : 1.0);  // a few heavy cases among light ones
    cases.push_back(c);
  }
  return cases;
}

TEST(Shard, EveryCaseFallsToExactlyOneShardForEveryCount) {
  const auto cases = some_cases(23);
  for (int n = 1; n <= 7; ++n) {
    std::vector<int> owner(cases.size(), 0);
    for (int i = 1; i <= n; ++i) {
      const auto mine = splinebench::runner::shard_case_indices(cases, {i, n});
      EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
      for (std::size_t k : mine) ++owner[k];
      // The same answer every time it is asked (every shard computes the partition alone).
      EXPECT_EQ(mine, splinebench::runner::shard_case_indices(cases, {i, n}));
    }
    for (int o : owner) EXPECT_EQ(o, 1) << "N = " << n;
  }
}

TEST(Shard, TheWorkIsBalanced) {
  const auto cases = some_cases(40);
  const double total = std::accumulate(cases.begin(), cases.end(), 0.0, [](double s, const PlannedCase& c) { return s + c.work; });
  const double heaviest = std::max_element(cases.begin(), cases.end(), [](const auto& a, const auto& b) {
                            return a.work < b.work;
                          })->work;
  for (int n = 2; n <= 5; ++n) {
    double most = 0;
    for (int i = 1; i <= n; ++i) {
      double w = 0;
      for (std::size_t k : splinebench::runner::shard_case_indices(cases, {i, n})) w += cases[k].work;
      most = std::max(most, w);
    }
    // Longest-processing-time first: no shard exceeds the mean by more than one case.
    EXPECT_LE(most, total / n + heaviest) << "N = " << n;
  }
}

TEST(Shard, BadTextsAreRefused) {
  for (const char* bad : {"", "1", "0/2", "3/2", "1/0", "-1/2", "1/2/3", "a/b", "1/99999", " 1/2", "1/"})
    EXPECT_THROW(splinebench::runner::parse_shard(bad), splinebench::Error) << bad;
  const Shard s = splinebench::runner::parse_shard("2/5");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.text(), "2/5");
}

// A run of six cases in two sweeps whose run_case says which inner case it ran.
class SixCases final : public SystemRun {
 public:
  SixCases() {
    for (int i = 0; i < 6; ++i) {
      PlannedCase c;
      c.id = "c" + std::to_string(i);
      c.impl = "x";
      c.work = i + 1;
      cases_.push_back(c);
    }
    sweeps_ = {{"first", 0, 3}, {"second", 3, 3}};
  }
  const std::string& suite() const override { return name_; }
  const std::vector<PlannedCase>& cases() const override { return cases_; }
  const std::vector<PlannedSweep>& sweeps() const override { return sweeps_; }
  const std::vector<std::string>& notes() const override { return notes_; }
  json options() const override { return {{"filter", ""}}; }
  json entry_facts() const override { return json::object(); }
  json run_case(std::size_t index, SkipKind*) override { return {{"case_id", cases_.at(index).id}}; }
  std::string summary_table(const std::vector<json>&) const override { return ""; }

 private:
  std::string name_ = "six";
  std::vector<PlannedCase> cases_;
  std::vector<PlannedSweep> sweeps_;
  std::vector<std::string> notes_;
};

TEST(Shard, AShardedRunShowsItsCasesAndSweepsInThePlansOrder) {
  std::set<std::string> seen;
  for (int i = 1; i <= 2; ++i) {
    auto run = splinebench::runner::shard_run(std::make_unique<SixCases>(), {i, 2});
    EXPECT_EQ(run->options()["shard"], std::to_string(i) + "/2");
    EXPECT_EQ(run->options()["filter"], "");
    std::size_t covered = 0;
    for (const PlannedSweep& s : run->sweeps()) {
      EXPECT_EQ(s.first_case, covered) << "sweeps stay contiguous, in order";
      covered += s.case_count;
    }
    EXPECT_EQ(covered, run->cases().size());
    for (std::size_t k = 0; k < run->cases().size(); ++k) {
      const json r = run->run_case(k, nullptr);
      EXPECT_EQ(r["case_id"], run->cases()[k].id) << "case k of the shard runs the inner case it names";
      EXPECT_TRUE(seen.insert(r["case_id"].get<std::string>()).second);
      if (k > 0) {
        EXPECT_LT(run->cases()[k - 1].id, run->cases()[k].id);
      }
    }
  }
  EXPECT_EQ(seen.size(), 6u);
}

}  // namespace
