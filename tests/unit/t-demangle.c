/* t-demangle.c - names demangled as perf shows them: C++ with its clone
 * suffixes, Rust's legacy scheme (the hash dropped) and v0 on the test
 * vectors of rustc-demangle's own suite (src/legacy.rs, src/v0.rs), the
 * .llvm.N and other suffixes, C names left alone, hostile names bounded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tachy/demangle.h"

/* NAME demangles to WANT (NULL: stays as it is). */
#define DM(name, want)                                                                             \
	do {                                                                                       \
		char *d_ = ty_demangle(name);                                                      \
		CHECK_STR(d_, want);                                                               \
		free(d_);                                                                          \
	} while (0)

static void
test_not_mangled(void)
{
	DM(NULL, NULL);
	DM("", NULL);
	DM("_", NULL);
	DM("_Z", NULL);
	DM("_R", NULL);
	DM("main", NULL);
	DM("plain_c_name", NULL);
	DM("__libc_start_main", NULL);
	/* libiberty's other schemes stay out: Ada would read foo.bar, D main */
	DM("foo__bar", NULL);
	DM("_Dmain", NULL);
	DM("_D4test3fooFZv", NULL);
	/* malformed */
	DM("_Zgarbage!!", NULL);
	DM("_ZN4test", NULL);
	DM("_ZNfooE", NULL);
	DM("_RNvC", NULL);
	DM("_RINvC3foo3bar", NULL);
}

static void
test_cxx(void)
{
	if (!ty_demangle_can()) {
		printf("# no C++ demangler here (libiberty or libstdc++): C++ cases skipped\n");
		DM("_ZN3foo3barEi", NULL);
		return;
	}
	DM("_ZN3foo3barEi", "foo::bar(int)");
	DM("_ZN2ns3BoxIlE4spinEl", "ns::Box<long>::spin(long)");
	DM("_ZNK3foo3getEv", "foo::get() const");
	DM("_ZNSt6vectorIiSaIiEE9push_backERKi",
	   "std::vector<int, std::allocator<int> >::push_back(int const&)");
	DM("_ZN3foo3barE", "foo::bar");
	/* a compiler's clones are named for their function, as perf names
	 * them (it shows "work" for _ZL4workli.constprop.0) */
	DM("_Z3foov.cold", "foo()");
	DM("_Z3fooi.isra.0", "foo(int)");
	DM("_Z3fooi.constprop.0", "foo(int)");
	DM("_Z3fooi.part.1", "foo(int)");
	DM("_Z3fooi.constprop.0.isra.0", "foo(int)");
	DM("_Z3fooi.llvm.123", "foo(int)");
	DM("_ZL4workli.constprop.0", "work(long, int)");
	DM("_ZNK2ns3Box3getEv.cold.12", "ns::Box::get() const");
	/* brackets of its own are kept */
	DM("_ZN3fooB5cxx11E", "foo[abi:cxx11]");
	DM("_ZN3fooB5cxx11Ev.cold", "foo[abi:cxx11]()");
	DM("_Z1fIJEEvv", "void f<>()");
	DM("_Z17 [clone .abc] xyzv.cold", " [clone .abc] xyz()"); /* fuzz-demangle's */
	DM("_Z11 [clone .x]", " [clone .x]");
	DM("_Z11 [clone .x]v.cold", " [clone .x]()");
}

/* rustc-demangle's src/legacy.rs cases, printed without the hash ({:#}),
 * as perf prints them. */
static void
test_rust_legacy(void)
{
	if (!ty_demangle_can_rust()) {
		printf("# built without libiberty: Rust cases skipped (a legacy name is read as "
		       "C++)\n");
		return;
	}
	DM("_ZN4work11count_words17h3c62e54a6ee2de85E", "work::count_words");
	DM("_ZN3foo17h05af221e174051e9E", "foo");
	DM("_ZN5alloc9allocator6Layout9for_value17h02a996811f781011E",
	   "alloc::allocator::Layout::for_value");
	DM("_ZN38_$LT$core..option..Option$LT$T$GT$$GT$6unwrap18_MSG_FILE_LINE_"
	   "COL17haf7cb8d5824ee659E",
	   "<core::option::Option<T>>::unwrap::_MSG_FILE_LINE_COL");
	DM("_ZN4core5slice89_$LT$impl$u20$core..iter..traits..IntoIterator$u20$for$u20$$RF$$u27$a$"
	   "u20$"
	   "$u5b$T$u5d$$GT$9into_iter17h450e234d27262170E",
	   "core::slice::<impl core::iter::traits::IntoIterator for &'a [T]>::into_iter");
	DM("_ZN151_$LT$alloc..boxed..Box$LT$alloc..boxed..FnBox$LT$A$C$$u20$Output$u3d$R$GT$$u20$$"
	   "u2b$"
	   "$u20$$u27$a$GT$$u20$as$u20$core..ops..function..FnOnce$LT$A$GT$$GT$9call_"
	   "once17h69e8f44b37"
	   "23e1caE",
	   "<alloc::boxed::Box<alloc::boxed::FnBox<A, Output=R> + 'a> as "
	   "core::ops::function::FnOnce<A>>::call_once");
	DM("_ZN88_$LT$core..result..Result$LT$$u21$$C$$u20$E$GT$$u20$as$u20$std..process.."
	   "Termination"
	   "$GT$6report17hfc41d0da4a40b3e8E",
	   "<core::result::Result<!, E> as std::process::Termination>::report");
	DM("_ZN71_$LT$Test$u20$$u2b$$u20$$u27$static$u20$as$u20$foo..Bar$LT$Test$GT$$GT$"
	   "3bar17h930b74"
	   "0aa94f1d3aE",
	   "<Test + 'static as foo::Bar<Test>>::bar");
	/* from the issue: an impl block, and std's entry with ThinLTO's suffix */
	DM("_ZN9hashbrown11rustc_entry62_$LT$impl$u20$hashbrown..map..HashMap$LT$K$C$V$C$S$C$A$GT$$"
	   "GT$"
	   "11rustc_entry17h4d9fb21acb759441E",
	   "hashbrown::rustc_entry::<impl hashbrown::map::HashMap<K,V,S,A>>::rustc_entry");
	DM("_ZN3std2rt10lang_start17h1b2c3d4e5f607182E.llvm.16791135377908753612",
	   "std::rt::lang_start");
	/* suffixes: .llvm.N (ThinLTO) and the others are dropped, as perf's
	 * libiberty drops them */
	DM("_ZN9backtrace3foo17hbb467fcdaea5d79bE.llvm.A5310EB9", "backtrace::foo");
	DM("_ZN4work11count_words17h3c62e54a6ee2de85E.cold", "work::count_words");
	DM("_ZN4core5slice77_$LT$impl$u20$core..ops..index..IndexMut$LT$I$GT$$u20$for$u20$$u5b$T$"
	   "u5d$"
	   "$GT$9index_mut17haf9727c2edfbc47bE.exit.i.i",
	   "core::slice::<impl core::ops::index::IndexMut<I> for [T]>::index_mut");
	/* a hash that is not one (legacy.rs's edge cases): read as C++, kept */
	DM("_ZN3foo16ffaf221e174051e9E", "foo::ffaf221e174051e9");
	DM("_ZN17h05af221e174051e93fooE", "h05af221e174051e9::foo");
}

/* rustc-demangle's src/v0.rs cases (its t_nohash! ones). */
static void
test_rust_v0(void)
{
	if (!ty_demangle_can_rust())
		return;
	DM("_RNvCs1z27uuqMeZr_4work11count_words", "work::count_words");
	DM("_RNvC6_123foo3bar", "123foo::bar");
	DM("_RC4f128", "f128");
	DM("_RNqCs4fqI2P2rA04_11utf8_identsu30____7hkackfecea1cbdathfdh9hlq6y",
	   "utf8_idents::\xe1\x83\xa1\xe1\x83\x90\xe1\x83\xad\xe1\x83\x9b\xe1\x83\x94\xe1\x83\x9a"
	   "\xe1\x83\x90\xe1\x83\x93_\xe1\x83\x92\xe1\x83\x94\xe1\x83\x9b\xe1\x83\xa0\xe1\x83\x98"
	   "\xe1\x83\x94\xe1\x83\x9a\xe1\x83\x98_\xe1\x83\xa1\xe1\x83\x90\xe1\x83\x93\xe1\x83\x98"
	   "\xe1\x83\x9a\xe1\x83\x98");
	DM("_RNCNCNgCs6DXkGYLi8lr_2cc5spawn00B5_", "cc::spawn::{closure#0}::{closure#0}");
	DM("_RNCINkXs25_NgCsbmNqQUJIY6D_4core5sliceINyB9_4IterhENuNgNoBb_"
	   "4iter8iterator8Iterator9rpositi"
	   "onNCNgNpB9_6memchr7memrchrs_0E0Bb_",
	   "<core::slice::Iter<u8> as "
	   "core::iter::iterator::Iterator>::rposition::<core::slice::memchr::"
	   "memrchr::{closure#1}>::{closure#0}");
	DM("_RINbNbCskIICzLVDPPb_5alloc5alloc8box_freeDINbNiB4_5boxed5FnBoxuEp6OutputuEL_"
	   "ECs1iopQbuBiw2_"
	   "3std",
	   "alloc::alloc::box_free::<dyn alloc::boxed::FnBox<(), Output = ()>>");
	DM("_RMC0TTTTTTpB8_EB7_EB6_EB5_EB4_EB3_E",
	   "<((((((_, _), (_, _)), ((_, _), (_, _))), (((_, _), (_, _)), ((_, _), (_, _)))), "
	   "((((_, _), (_, _)), ((_, _), (_, _))), (((_, _), (_, _)), ((_, _), (_, _))))), "
	   "(((((_, _), (_, _)), ((_, _), (_, _))), (((_, _), (_, _)), ((_, _), (_, _)))), "
	   "((((_, _), (_, _)), ((_, _), (_, _))), (((_, _), (_, _)), ((_, _), (_, _))))))>");
	/* constants (t_const!) */
	DM("_RIC0Kj7b_E", "::<123>");
	DM("_RIC0Kb1_E", "::<true>");
	DM("_RIC0Kanb_E", "::<-11>");
	/* suffixes: ThinLTO's dropped (v0.rs's demangle_thinlto), and the others */
	DM("_RC3foo.llvm.9D1C9369", "foo");
	DM("_RC3foo.llvm.9D1C9369@@16", "foo");
	DM("_RNvC9backtrace3foo.llvm.A5310EB9", "backtrace::foo");
	DM("_RNvNtNtNtNtCs92dm3009vxr_4rand4rngs7adapter9reseeding4fork23FORK_HANDLER_REGISTERED.0."
	   "0",
	   "rand::rngs::adapter::reseeding::fork::FORK_HANDLER_REGISTERED");
	DM("_RNvCs1z27uuqMeZr_4work11count_words.cold", "work::count_words");
}

/* Hostile names: never a crash, never an output past the bound. */
static void
test_bounds(void)
{
	static const char b62[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	size_t n, i, k;
	char *name, *d;

	/* a name at the input bound demangles; one past it is left */
	name = malloc(TY_DEMANGLE_MAX_IN + 16);
	CHECK(name != NULL);
	if (!name)
		return;
	for (k = 0; k < 2; k++) {
		size_t id = TY_DEMANGLE_MAX_IN - 7 + k; /* _RC<4 digits><id>: a crate's name */

		n = (size_t)sprintf(name, "_RC%zu", id);
		memset(name + n, 'a', id);
		n += id;
		name[n] = '\0';
		CHECK_INT(strlen(name), TY_DEMANGLE_MAX_IN + k);
		d = ty_demangle(name);
		if (k == 0 && ty_demangle_can_rust())
			CHECK(d && strlen(d) == id && d[0] == 'a' && d[id - 1] == 'a');
		if (k == 1)
			CHECK(d == NULL);
		free(d);
	}
	/* C++: libiberty (and libstdc++'s __cxa_demangle, the same code) take
	 * names of 1024 characters at most (its stack is sized by the name) */
	for (k = 0; k < 2; k++) {
		size_t id = 1017 + k; /* _Z<4 digits><id>v */

		n = (size_t)sprintf(name, "_Z%zu", id);
		memset(name + n, 'a', id);
		n += id;
		name[n++] = 'v';
		name[n] = '\0';
		CHECK_INT(strlen(name), 1024 + k);
		d = ty_demangle(name);
		if (k == 0 && ty_demangle_can())
			CHECK(d && strlen(d) == id + 2 && !strcmp(d + id, "()"));
		if (k == 1)
			CHECK(d == NULL);
		free(d);
	}
	/* back-references that double the output 40 times (2^40 copies of
	 * "_", v0.rs's demangle_exponential_explosion made deeper): given up
	 * at the output bound, at once */
	n = (size_t)sprintf(name, "_RMC0");
	for (i = 0; i < 40; i++)
		name[n++] = 'T';
	name[n++] = 'p';
	for (i = 40 + 2; i > 2; i--)
		n += (size_t)sprintf(name + n, "B%c_E", b62[i]);
	d = ty_demangle(name);
	CHECK(d == NULL);
	free(d);
	/* deep nesting: two thousand arrays inside each other */
	n = (size_t)sprintf(name, "_RINvC3foo3bar");
	for (i = 0; i < 2000; i++)
		name[n++] = 'A';
	name[n++] = 'p';
	for (i = 0; i < 2000; i++)
		name[n++] = 'j', name[n++] = 'E'; /* ill-formed, but deep */
	name[n] = '\0';
	d = ty_demangle(name);
	CHECK(!d || strlen(d) < TY_DEMANGLE_MAX_OUT);
	free(d);
	n = (size_t)sprintf(name, "_Z1f");
	for (i = 0; i < 2000; i++)
		name[n++] = 'P';
	name[n++] = 'i';
	name[n] = '\0';
	d = ty_demangle(name); /* past libiberty's recursion limit */
	CHECK(!d || strlen(d) < TY_DEMANGLE_MAX_OUT);
	free(d);
	free(name);
}

static void
test_backend(void)
{
	const char *b = ty_demangle_backend();

	CHECK(!strcmp(b, "libiberty") || !strcmp(b, "libstdc++") || !strcmp(b, "none"));
	CHECK_INT(ty_demangle_can_rust(), !strcmp(b, "libiberty"));
	CHECK_INT(ty_demangle_can(), strcmp(b, "none") != 0);
#ifdef HAVE_LIBIBERTY
	CHECK_STR(b, "libiberty");
#endif
}

int
main(void)
{
	test_not_mangled();
	test_cxx();
	test_rust_legacy();
	test_rust_v0();
	test_bounds();
	test_backend();
	return check_done();
}
