"""Instruments systems/iir2d/cuda/strips.cu in place for one experiment (stamps.sh restores
it): each warp of every block sums the cycles from the start of a step to its arrival at
the step's barrier ("work"), and the whole loop's cycles ("loop"); lane 0 of each warp of
block 0 prints both per strip it ran. The warp whose work is close to the loop's is the one
that sets the step; the others' difference is their wait at the barrier."""
import sys

path = sys.argv[1]
src = open(path).read()


def insert(anchor: str, text: str, after: bool = True) -> None:
    global src
    if src.count(anchor) != 1:
        sys.exit(f"anchor not unique or missing: {anchor!r}")
    i = src.index(anchor)
    src = src[: i + len(anchor)] + text + src[i + len(anchor):] if after else src[:i] + text + src[i:]


insert("#include <vector>\n", "#include <cstdio>\n")
insert("    for (long long s = 0; s < steps; ++s) {\n",
       "      const long long t_step = clock64();\n")
insert("    for (long long s = 0; s < steps; ++s) {\n",
       "    long long stamp_work = 0;\n    const long long t_loop = clock64();\n", after=False)
insert("      __syncthreads();\n    }\n",
       "    if (blockIdx.x == 0 && lane == 0)\n"
       "      printf(\"strips stamp: strip %lld warp %d steps %lld work %lld loop %lld cycles\\n\", n, warp, steps,\n"
       "             stamp_work, clock64() - t_loop);\n")
insert("      __syncthreads();\n    }\n", "      stamp_work += clock64() - t_step;\n", after=False)
open(path, "w").write(src)
