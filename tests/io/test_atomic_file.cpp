// Writing outputs (harness/io atomic_file): regular files are replaced atomically
// (temporary + rename) from a stream of bytes or a string, with the temporary in the
// destination's folder or a chosen one; character devices and FIFOs are written
// through and symbolic links kept, never replaced; other special files are refused;
// an interrupt during a write removes the temporary and ends the process by its signal.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <string>

#include "npy_test_files.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"

using namespace splinebench;
using namespace splinebench::testing;
namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& path, const std::string& text) {
  io::write_file_atomically(path, [&](const io::PutBytes& put) { put(text.data(), text.size()); });
}

// The read end of a FIFO, opened without blocking before anything writes, so that
// the writer's open succeeds at once and a writer that never opens the FIFO leaves
// the reader with nothing (instead of blocking the test).
class FifoReader {
 public:
  explicit FifoReader(const fs::path& fifo) : fd_(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) {}
  ~FifoReader() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  // What is buffered in the pipe now (the writer has finished and closed it).
  std::string drain() {
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd_, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    return out;
  }

 private:
  int fd_;
};

}  // namespace

TEST(AtomicFile, FifoIsWrittenThroughNotReplaced) {
  ScratchDir dir;
  const fs::path fifo = dir / "out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  FifoReader reader(fifo);
  ASSERT_TRUE(reader.ok());
  // Smaller than a pipe's buffer, so the write completes with nobody reading yet.
  write_text(fifo, "through the pipe");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(reader.drain(), "through the pipe");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.fifo"});
}

TEST(AtomicFile, SymlinkIsKeptAndItsTargetReplaced) {
  ScratchDir dir;
  fs::create_directory(dir / "data");
  write_bytes(dir / "data" / "real.npy", "old");
  fs::create_symlink("data/real.npy", dir / "link.npy");
  write_text(dir / "link.npy", "new content");
  EXPECT_TRUE(fs::is_symlink(dir / "link.npy")) << "the link was replaced by a file";
  EXPECT_EQ(fs::read_symlink(dir / "link.npy"), fs::path("data/real.npy"));
  EXPECT_EQ(read_bytes(dir / "data" / "real.npy"), "new content");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"data", "link.npy"}));
  EXPECT_EQ(fs::directory_iterator(dir / "data")->path().filename(), "real.npy");
}

TEST(AtomicFile, DanglingSymlinkCreatesItsTarget) {
  ScratchDir dir;
  fs::create_symlink("made.bin", dir / "link.bin");
  write_text(dir / "link.bin", "created through the link");
  EXPECT_TRUE(fs::is_symlink(dir / "link.bin"));
  EXPECT_EQ(read_bytes(dir / "made.bin"), "created through the link");
}

// --- regular files -----------------------------------------------------------------

TEST(AtomicFile, StringWriteReplacesWholeAndLeavesNoTemporary) {
  ScratchDir dir;
  io::write_file_atomically(dir / "a.json", "first\n");
  EXPECT_EQ(read_bytes(dir / "a.json"), "first\n");
  const std::string big(1 << 20, 'x');
  io::write_file_atomically(dir / "a.json", big);
  EXPECT_EQ(read_bytes(dir / "a.json"), big);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.json"});
}

TEST(AtomicFile, TemporaryGoesToTheChosenFolder) {
  ScratchDir dir;
  fs::create_directory(dir / ".partial");
  std::vector<std::string> seen_during_write;
  io::write_file_atomically(
      dir / "r.json",
      [&](const io::PutBytes& put) {
        put("{}", 2);
        for (const auto& e : fs::directory_iterator(dir / ".partial"))
          seen_during_write.push_back(e.path().filename().string());
      },
      dir / ".partial");
  ASSERT_EQ(seen_during_write.size(), 1u);
  EXPECT_EQ(seen_during_write[0].rfind(".r.json.tmp-", 0), 0u) << seen_during_write[0];
  EXPECT_EQ(read_bytes(dir / "r.json"), "{}");
  EXPECT_TRUE(fs::is_empty(dir / ".partial"));
}

TEST(AtomicFile, MissingTemporaryFolderLeavesTargetUntouched) {
  ScratchDir dir;
  io::write_file_atomically(dir / "a.json", "old");
  EXPECT_THROW(io::write_file_atomically(dir / "a.json", "new", dir / "missing-folder"), Error);
  EXPECT_EQ(read_bytes(dir / "a.json"), "old");
}

TEST(AtomicFile, FailureMidWriteRemovesTheTemporaryAndKeepsTheOldFile) {
  ScratchDir dir;
  write_bytes(dir / "out.npy", "previous");
  EXPECT_THROW(io::write_file_atomically(dir / "out.npy",
                                         [](const io::PutBytes& put) {
                                           put("partial", 7);
                                           throw Error("simulated failure while writing");
                                         }),
               Error);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.npy"});
  EXPECT_EQ(read_bytes(dir / "out.npy"), "previous");
}

TEST(AtomicFile, LargePartialWriteLeavesNothing) {
  // A megabyte already written to the temporary when the failure comes: still no trace.
  ScratchDir dir;
  EXPECT_THROW(io::write_file_atomically(dir / "x.bin",
                                         [](const io::PutBytes& put) {
                                           const std::string big(1 << 20, 'a');
                                           put(big.data(), big.size());
                                           throw Error("stop");
                                         }),
               Error);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(AtomicFile, ReplacedFileKeepsItsPermissions) {
  ScratchDir dir;
  write_bytes(dir / "p.bin", "old");
  fs::permissions(dir / "p.bin", fs::perms::owner_read | fs::perms::owner_write);
  io::write_file_atomically(dir / "p.bin", "new");
  EXPECT_EQ(fs::status(dir / "p.bin").permissions(), fs::perms::owner_read | fs::perms::owner_write);
}

TEST(AtomicFile, ReadOnlyFileIsRefusedNotReplaced) {
  // A file made read-only (0444) is one its owner wants kept: the rename would replace
  // it without a word (the folder is writable), so it is refused, also for root, who
  // could write it but whose tools (mv, rm) ask first.
  ScratchDir dir;
  write_bytes(dir / "kept.npy", "old");
  const auto read_only = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;
  fs::permissions(dir / "kept.npy", read_only);
  for (const fs::path& name : {fs::path("kept.npy"), fs::path("link.npy")}) {
    SCOPED_TRACE(name);
    if (name == "link.npy") fs::create_symlink("kept.npy", dir / "link.npy");
    try {
      io::check_output(dir / name);
      ADD_FAILURE() << "check_output accepted a read-only file";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
    }
    try {
      io::write_file_atomically(dir / name, "new");
      ADD_FAILURE() << "a read-only file was replaced";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("read-only (mode 0444)"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_bytes(dir / "kept.npy"), "old");
    EXPECT_EQ(fs::status(dir / "kept.npy").permissions(), read_only);
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"kept.npy", "link.npy"}));
}

// --- special files -------------------------------------------------------------------

TEST(AtomicFile, DevNullIsWrittenThrough) {
  // First a FIFO in a scratch folder: code that replaced special files would replace
  // /dev/null for the whole machine when the tests run as root.
  {
    ScratchDir dir;
    const fs::path fifo = dir / "guard.fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    FifoReader reader(fifo);
    ASSERT_TRUE(reader.ok());
    write_text(fifo, "x");
    struct stat st {};
    ASSERT_TRUE(::lstat(fifo.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) << "FIFOs are replaced; /dev/null not tried";
  }
  struct stat before {}, after {};
  ASSERT_EQ(::stat("/dev/null", &before), 0);
  ASSERT_TRUE(S_ISCHR(before.st_mode));
  io::write_file_atomically("/dev/null", std::string(1 << 16, 'z'));
  ASSERT_EQ(::stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  EXPECT_EQ(after.st_rdev, before.st_rdev);
  EXPECT_EQ(after.st_ino, before.st_ino);
}

TEST(AtomicFile, DirectoriesSocketsAndBlockDevicesAreRefused) {
  ScratchDir dir;
  fs::create_directory(dir / "d");
  try {
    io::check_output(dir / "d");
    ADD_FAILURE() << "a directory was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("it is a directory"), std::string::npos) << e.what();
  }

  const fs::path sock = dir / "s.sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock.native().size(), sizeof addr.sun_path);
  std::strcpy(addr.sun_path, sock.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  try {
    io::write_file_atomically(sock, "data");
    ADD_FAILURE() << "a socket was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("it is a socket"), std::string::npos) << e.what();
  }
  ::close(fd);
  struct stat st {};
  ASSERT_EQ(::lstat(sock.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));

  // A block device node of a device number nobody registers (opening it would fail
  // with ENXIO), if this process may make one.
  const fs::path blk = dir / "b.dev";
  if (::mknod(blk.c_str(), S_IFBLK | 0600, makedev(4095, 1048575)) == 0) {
    try {
      io::write_file_atomically(blk, "data");
      ADD_FAILURE() << "a block device was written";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("it is a block device"), std::string::npos) << e.what();
    }
    ASSERT_EQ(::lstat(blk.c_str(), &st), 0);
    EXPECT_TRUE(S_ISBLK(st.st_mode));
  }
}

TEST(AtomicFile, MissingFolderIsReportedBeforeWriting) {
  ScratchDir dir;
  try {
    io::check_output(dir / "no" / "x.npy");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  fs::create_symlink("loop", dir / "loop");
  EXPECT_THROW(io::check_output(dir / "loop"), Error);
}

// --- interrupts ------------------------------------------------------------------------

// In a child process (gtest death test): the guard is installed, a write of a
// megabyte is under way, and `sig` arrives. The child must die by that signal
// and leave neither a temporary nor a partial destination.
void write_interrupted_by(int sig, const fs::path& dir) {
  io::install_interrupt_guard();
  io::write_file_atomically(dir / "out.bin", [&](const io::PutBytes& put) {
    const std::string block(1 << 20, 'n');
    put(block.data(), block.size());
    ::raise(sig);
    put(block.data(), block.size());
  });
  std::_Exit(0);  // not reached when the signal ends the process
}

TEST(AtomicFileDeathTest, InterruptDuringWriteRemovesTheTemporaryAndDiesBySignal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(sig);
    ScratchDir dir;
    write_bytes(dir / "out.bin", "old");
    EXPECT_EXIT(write_interrupted_by(sig, dir.path()), ::testing::KilledBySignal(sig), "");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.bin"});
    EXPECT_EQ(read_bytes(dir / "out.bin"), "old");
  }
}

TEST(AtomicFileDeathTest, InheritedIgnoredSignalStaysIgnored) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::signal(SIGHUP, SIG_IGN);  // as nohup leaves it
        io::install_interrupt_guard();
        ::raise(SIGHUP);
        std::_Exit(7);
      },
      ::testing::ExitedWithCode(7), "");
}
