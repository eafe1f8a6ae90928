// pb_parse: the yardstick of `make bench`. Parses an XSpace file the way a
// C++ tool built on Debian's libprotobuf does (generated classes, arena
// allocation, the whole message at once) and counts its events, so that
// xtop's figures are ratios to a standard parser measured in the same run.
//   build/bench/pb_parse FILE
// Prints "events N parse_s S" on stdout (parse time only: mapping the file
// is not counted; peak memory is taken by the caller, e.g. /usr/bin/time).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>

#include "xplane.pb.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: pb_parse FILE\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		std::perror(argv[1]);
		return 2;
	}
	size_t n = (size_t)st.st_size;
	if (n > INT_MAX) {
		// libprotobuf refuses messages of 2 GiB or more.
		std::fprintf(stderr, "pb_parse: %s: %zu bytes, over libprotobuf's 2 GiB limit\n",
			     argv[1], n);
		return 3;
	}
	void *p = mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		std::perror("mmap");
		return 2;
	}
	auto t0 = std::chrono::steady_clock::now();
	google::protobuf::Arena arena;
	auto *xs = google::protobuf::Arena::CreateMessage<tensorflow::profiler::XSpace>(&arena);
	google::protobuf::io::CodedInputStream in(static_cast<const uint8_t *>(p), (int)n);
	in.SetRecursionLimit(100);
	if (!xs->ParseFromCodedStream(&in)) {
		std::fprintf(stderr, "pb_parse: %s: not a valid XSpace\n", argv[1]);
		return 2;
	}
	auto t1 = std::chrono::steady_clock::now();
	unsigned long long events = 0;
	for (const auto &pl : xs->planes())
		for (const auto &l : pl.lines())
			events += (unsigned long long)l.events_size();
	std::printf("events %llu parse_s %.3f\n", events,
		    std::chrono::duration<double>(t1 - t0).count());
	return 0;
}
