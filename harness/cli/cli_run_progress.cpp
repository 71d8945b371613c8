#include "cli_run_progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

namespace splinebench::cli {
namespace {

using Clock = std::chrono::steady_clock;

std::string format_duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

int terminal_width() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 100;
}

class ProgressBar final : public runner::RunObserver {
 public:
  void on_start(const std::string&, const std::vector<double>& work, std::size_t already_done) override {
    work_ = work;
    total_cases_ = work.size();
    done_cases_ = already_done;
    for (double w : work) remaining_work_ += w;
    start_ = Clock::now();
  }
  void on_case_start(std::size_t, const std::string& case_id) override {
    current_ = case_id;
    draw(false);
  }
  void on_case_done(std::size_t index, const nlohmann::json&) override {
    remaining_work_ -= work_[index];
    if (!current_.empty()) {  // run here, not taken over from before a resume
      done_work_ += work_[index];
      ++done_cases_;
    }
    current_.clear();
    draw(false);
  }
  void on_note(const std::string& line) override {
    std::cerr << "\r\033[K" << line << '\n';
    draw(true);
  }
  void on_finish() override {
    draw(true);
    std::cerr << '\n';
  }

 private:
  void draw(bool force) {
    const auto now = Clock::now();
    if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double total = done_work_ + remaining_work_;
    const double fraction = total > 0 ? done_work_ / total : 1.0;
    std::string eta = "--:--";
    if (done_work_ > 0 && elapsed > 1.0) eta = format_duration(elapsed / done_work_ * remaining_work_);
    const int width = 24;
    const int filled = static_cast<int>(fraction * width + 0.5);
    std::ostringstream line;
    line << '[' << std::string(filled, '#') << std::string(width - filled, '-') << "] " << done_cases_ << '/'
         << total_cases_ << "  elapsed " << format_duration(elapsed) << "  ETA " << eta << "  " << current_;
    std::string text = line.str();
    const auto cols = static_cast<std::size_t>(terminal_width() - 1);
    if (text.size() > cols) text.resize(cols);
    std::cerr << "\r\033[K" << text << std::flush;
  }

  std::vector<double> work_;
  std::size_t total_cases_ = 0, done_cases_ = 0;
  double done_work_ = 0, remaining_work_ = 0;
  std::string current_;
  Clock::time_point start_{}, last_draw_{};
};

class QuietLog final : public runner::RunObserver {
 public:
  void on_start(const std::string& suite, const std::vector<double>& work, std::size_t already_done) override {
    std::cerr << "suite '" << suite << "': " << work.size() << " cases";
    if (already_done) std::cerr << " (" << already_done << " already done)";
    std::cerr << '\n';
  }
  void on_sweep(const runner::PlannedSweep& sweep) override {
    std::cerr << "sweep '" << sweep.name << "': " << sweep.case_count << " cases\n";
  }
  void on_note(const std::string& line) override { std::cerr << "  " << line << '\n'; }
};

}  // namespace

std::unique_ptr<runner::RunObserver> make_console_observer(bool interactive) {
  if (interactive) return std::make_unique<ProgressBar>();
  return std::make_unique<QuietLog>();
}

}  // namespace splinebench::cli
