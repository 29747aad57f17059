// cxx.cc - a C++ test program: its hot function has a mangled template name.
#include <cstdlib>
namespace ns {
template <typename T> struct Box {
	__attribute__((noinline)) static T spin(long n) { volatile T s = 0; for (long i = 0; i < n; i++) s = s + (T)i; return s; }
};
}
int main(int argc, char **argv) { return (int)ns::Box<long>::spin(argc > 1 ? atol(argv[1]) : 200000000) & 1; }
