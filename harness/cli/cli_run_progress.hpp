// Console feedback for `splinebench run`: a one-line progress bar with an ETA when
// stderr is a terminal, otherwise one line per sweep. Notes (skipped
// implementations, failures, errors) are printed in both cases.
#pragma once

#include <memory>

#include "splinebench/runner/suite_runner.hpp"

namespace splinebench::cli {

std::unique_ptr<runner::RunObserver> make_console_observer(bool interactive);

}  // namespace splinebench::cli
