# tachy - plain Makefile. See README.md.
#   make            build ./tachy and lib/libtachy.a
#   make test       install test peers if missing, build, run every test
#   make demo       install what is missing, build, run a real example
#   make bench      run the benchmarks against peers (figures go in BENCHMARKS.md)
#   make bench-smoke every benchmark in a mode of seconds (CI: it still builds and runs)
#   make install PREFIX=/usr/local DESTDIR=
#   make fuzz       build a libFuzzer target per tests/fuzz/fuzz-*.c (clang)
#   make fuzz-smoke run each 20000 inputs from a fixed seed over its corpus (fails on a crash)
# Knobs: DEVELOPER=1 (warnings are errors), SANITIZE=address,undefined,
#        NO_OPTIONAL=1 (build with libc and libm only), V=1.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

CC ?= cc
CFLAGS ?= -O2 -g
CPPFLAGS += -Iinclude -D_GNU_SOURCE
ALL_CFLAGS = -std=gnu11 -pthread $(CFLAGS)
LDLIBS += -lm -pthread

ifdef DEVELOPER
ALL_CFLAGS += -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter -Wvla
else
ALL_CFLAGS += -Wall
endif

FUZZ_CC ?= clang
ifdef FUZZ
# make fuzz: libtachy built with clang, coverage for libFuzzer and the
# sanitizers, in its own build directory; the targets add -fsanitize=fuzzer.
CC := $(FUZZ_CC)
FUZZ_SAN = address,undefined
ALL_CFLAGS += -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(FUZZ_SAN)
CFG := fuzz
else ifdef SANITIZE
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
CFG := san
else
CFG := std
endif
ifdef NO_OPTIONAL
CFG := $(CFG)-core
endif
B := build/$(CFG)

# Optional libraries: found with a test compile; without them the features
# that need them say "not built with X".
define probe
$(shell printf '#include <$(2)>\nint main(void){return 0;}\n' | \
	$(CC) -x c - -o /dev/null $(3) >/dev/null 2>&1 && echo $(1))
endef
PQ_CFLAGS := $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql)
ifndef NO_OPTIONAL
HAVE := $(call probe,JANSSON,jansson.h,-ljansson) \
	$(call probe,LIBDW,elfutils/libdwfl.h,-ldw -lelf) \
	$(call probe,LIBELF,gelf.h,-lelf) \
	$(call probe,LIBPFM,perfmon/pfmlib_perf_event.h,-lpfm) \
	$(call probe,LZMA,lzma.h,-llzma) \
	$(call probe,DEBUGINFOD,elfutils/debuginfod.h,-ldebuginfod) \
	$(call probe,ZLIB,zlib.h,-lz) \
	$(call probe,SQLITE3,sqlite3.h,-lsqlite3) \
	$(call probe,LIBPQ,libpq-fe.h,$(PQ_CFLAGS) -lpq) \
	$(call probe,LIBIBERTY,libiberty/demangle.h,-liberty)
endif
HAVE := $(strip $(HAVE))
CPPFLAGS += $(foreach h,$(HAVE),-DHAVE_$(h))
OPT_LIBS := $(if $(filter JANSSON,$(HAVE)),jansson) $(if $(filter LIBDW,$(HAVE)),dw) \
	$(if $(filter LIBELF,$(HAVE)),elf) $(if $(filter LZMA,$(HAVE)),lzma) \
	$(if $(filter ZLIB,$(HAVE)),z)
OPT_LDLIBS := $(patsubst %,-l%,$(OPT_LIBS))
LDLIBS += $(OPT_LDLIBS)
# The tachy binary loads those at their first call (src/lazy/), on x86-64:
# linked, they were mapped at every start. LAZY= links them.
LAZY ?= $(if $(filter x86_64%,$(shell $(CC) -dumpmachine)),1)
# libiberty (the demangler, demangle.c) is a static archive: linked in.
LDLIBS += $(if $(filter LIBIBERTY,$(HAVE)),-liberty)
# libpq, libdebuginfod, libpfm4 and libsqlite3 are not linked: lib/dynlib.c
# loads them when a command needs them (libpq's and libdebuginfod's 30
# dependencies and the relocations of libpfm4 and sqlite cost every command's
# start-up). The unit tests that read a history's file directly link sqlite.
TEST_LDLIBS := $(if $(filter SQLITE3,$(HAVE)),-lsqlite3)
CPPFLAGS += $(if $(filter LIBPQ,$(HAVE)),$(PQ_CFLAGS))

LIB_SRC := $(sort $(wildcard lib/*.c))
SRC_SRC := $(sort $(wildcard src/*.c))
CMDS := $(patsubst src/cmd-%.c,%,$(filter src/cmd-%.c,$(SRC_SRC)))
UNIT_SRC := $(sort $(wildcard tests/unit/t-*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
SRC_OBJ := $(SRC_SRC:%.c=$(B)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
# The bench programs that use libtachy (they include its headers): linked as
# the unit tests are, never against a hand-kept list of lib/ sources.
BENCH_SRC := $(shell grep -l '^\#include "tachy/' bench/*.c 2>/dev/null)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(B)/bench/%)
HDRS := $(wildcard include/tachy/*.h lib/*.h src/*.h tests/unit/*.h)

ifndef V
Q = @
QCC = @echo "  CC      $<";
QLD = @echo "  LINK    $@";
endif

.PHONY: fuzz fuzz-smoke fuzz-targets all test unit-test cli-test demo bench bench-progs bench-smoke install uninstall clean deps deps-test deps-bench deps-ci fmt fmt-check FORCE
all: tachy lib/libtachy.a

# Rebuild everything when the flags change.
$(B)/.flags: FORCE
	@mkdir -p $(B)
	@echo '$(CC) $(ALL_CFLAGS) $(CPPFLAGS) $(LDFLAGS) $(LDLIBS)' > $@.new
	@cmp -s $@.new $@ && rm $@.new || mv $@.new $@

$(B)/cmdlist.h: $(B)/.flags FORCE
	@printf '$(foreach c,$(CMDS),CMD($(subst -,_,$(c)))\n)' | sed 's/^ //' > $@.new
	@cmp -s $@.new $@ && rm $@.new || mv $@.new $@

$(B)/%.o: %.c $(HDRS) $(B)/.flags
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -I$(B) -c -o $@ $<

$(B)/src/tachy.o: $(B)/cmdlist.h

# The spawner helper (lib/spawner/helper.c): a program without libc that
# clones the measured runs from a tiny address space; linked into libtachy
# as bytes. Where it cannot be built the blob is empty and tachy clones the
# runs itself (their peak RSS is then floored at tachy's own).
HELPER_CFLAGS = -Os -static -nostdlib -ffreestanding -fno-builtin -fno-stack-protector \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fno-pie -no-pie -fcf-protection=none \
	-Wl,--build-id=none -Wl,-z,noexecstack -Ilib/spawner
$(B)/spawner-helper: lib/spawner/helper.c lib/spawner/helper-proto.h $(B)/.flags
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(HELPER_CFLAGS) -o $@ $< 2>$@.log || : > $@

$(B)/spawner-blob.o: $(B)/spawner-helper
	$(Q)printf '\t.section .rodata\n\t.globl ty_spawner_blob\nty_spawner_blob:\n\t.incbin "%s"\n\t.globl ty_spawner_blob_end\nty_spawner_blob_end:\n\t.section .note.GNU-stack,"",%%progbits\n' \
		$< | $(CC) -c -x assembler -o $@ -

$(B)/libtachy.a: $(LIB_OBJ) $(B)/spawner-blob.o
	$(Q)rm -f $@ && ar rcs $@ $^

lib/libtachy.a: $(B)/libtachy.a
	$(Q)cp $< $@

ifeq ($(and $(filter 1,$(LAZY)),$(strip $(OPT_LIBS))),)
$(B)/tachy: $(SRC_OBJ) $(B)/libtachy.a
	$(QLD)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(SRC_OBJ) $(B)/libtachy.a $(LDLIBS)
else
# A stub for each function of OPT_LIBS that tachy calls (src/lazy/stubs.sh);
# lazy-ldlibs names the libraries that could not be stubbed, linked.
$(B)/lazy.stamp: $(SRC_OBJ) $(B)/libtachy.a src/lazy/stubs.sh
	$(Q)sh src/lazy/stubs.sh $(B) '$(CC)' '$(OPT_LIBS)' $(SRC_OBJ) $(B)/libtachy.a && touch $@

$(B)/lazy-stubs.o: $(B)/lazy.stamp
	$(Q)$(CC) -c -o $@ $(B)/lazy-stubs.S

$(B)/lazy-tables.o: $(B)/lazy.stamp src/lazy/resolve.h
	$(Q)$(CC) $(ALL_CFLAGS) -Isrc/lazy -c -o $@ $(B)/lazy-tables.c

$(B)/lazy-resolve.o: src/lazy/resolve.c src/lazy/resolve.h $(B)/.flags
	$(QCC)$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -c -o $@ $<

LAZY_OBJ := $(B)/lazy-stubs.o $(B)/lazy-tables.o $(B)/lazy-resolve.o
$(B)/tachy: $(SRC_OBJ) $(B)/libtachy.a $(LAZY_OBJ)
	$(QLD)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(SRC_OBJ) $(LAZY_OBJ) $(B)/libtachy.a \
		$(filter-out $(OPT_LDLIBS),$(LDLIBS)) $$(cat $(B)/lazy-ldlibs)
endif

tachy: $(B)/tachy FORCE
	$(Q)cmp -s $< $@ || cp $< $@

$(B)/bench/%: bench/%.c $(B)/libtachy.a $(HDRS) $(B)/.flags
	@mkdir -p $(dir $@)
	$(QLD)$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(B)/libtachy.a $(LDLIBS) $(TEST_LDLIBS)

$(B)/tests/%: tests/unit/%.c $(B)/libtachy.a $(HDRS) $(B)/.flags
	@mkdir -p $(dir $@)
	$(QLD)$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(B)/libtachy.a $(LDLIBS) $(TEST_LDLIBS)

# Fuzz targets: every tests/fuzz/fuzz-NAME.c, linked against the fuzz
# build's libtachy, into build/fuzz/fuzz-NAME; its seeds are in
# tests/fuzz/corpus/NAME/ (fuzz-smoke works on a copy: libFuzzer adds the
# inputs it finds to the first corpus directory).
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_SECONDS ?= 60

fuzz:
	$(Q)$(MAKE) --no-print-directory FUZZ=1 fuzz-targets

fuzz-targets: $(FUZZ_BIN)

build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(B)/libtachy.a $(HDRS) $(B)/.flags
	@mkdir -p $(dir $@)
	$(QLD)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $(CPPFLAGS) $(LDFLAGS) -o $@ $< \
		$(B)/libtachy.a $(LDLIBS)

fuzz-smoke: deps-test
	$(Q)$(MAKE) --no-print-directory fuzz
	$(Q)sh tests/fuzz/smoke.sh $(FUZZ_SECONDS) $(FUZZ_BIN)

# Test peers (ministat, hyperfine, perf...) are installed when missing;
# tests that need one that could not be had skip with a message.
deps:
	$(Q)sh scripts/deps.sh build
deps-test:
	$(Q)sh scripts/deps.sh build test
deps-bench:
	$(Q)sh scripts/deps.sh build test bench
deps-ci:
	$(Q)sh scripts/deps.sh build test ci

test: deps-test
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BIN)
	$(Q)sh tests/run-tests.sh $(B)/tests

unit-test: all $(UNIT_BIN)
	$(Q)sh tests/run-tests.sh --unit-only $(B)/tests

cli-test: all
	$(Q)sh tests/run-tests.sh --cli-only $(B)/tests

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh scripts/demo.sh

bench: deps-bench
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh bench/run-all.sh

bench-progs: all $(BENCH_BIN)

# Every bench/*.sh with tiny sizes and one round (bench/smoke.sh): its
# figures printed, not judged; a benchmark that no longer builds or runs fails.
bench-smoke: deps-bench
	$(Q)$(MAKE) --no-print-directory bench-progs
	$(Q)sh bench/smoke.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(B)/tachy $(DESTDIR)$(BINDIR)/tachy
	install -m 644 docs/*.1 $(DESTDIR)$(MANDIR)/man1/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tachy
	for f in docs/*.1; do rm -f $(DESTDIR)$(MANDIR)/man1/$${f#docs/}; done

FMT_FILES = $(sort $(wildcard lib/*.c lib/*.h lib/spawner/*.[ch] src/*.c src/lazy/*.[ch] include/tachy/*.h src/*.h tests/unit/*.[ch] \
	tests/fuzz/*.c bench/*.c))
CLANG_FORMAT_MISSING = command -v clang-format >/dev/null 2>&1 || { echo "$@: clang-format is not \
	installed (as root: apt-get install clang-format, or sh scripts/deps.sh ci)" >&2; exit 1; }
fmt:
	$(Q)$(CLANG_FORMAT_MISSING)
	clang-format -i $(FMT_FILES)

# Fails, naming the files, when one differs from what .clang-format makes of it.
fmt-check:
	$(Q)$(CLANG_FORMAT_MISSING)
	$(Q)out=$$(clang-format --dry-run --Werror $(FMT_FILES) 2>&1) && exit 0; \
	bad=$$(printf '%s\n' "$$out" | sed -n 's/^\([^: ]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u); \
	if [ -n "$$bad" ]; then printf 'fmt-check: %s is not formatted (make fmt)\n' $$bad; \
	else printf '%s\n' "$$out" >&2; fi; exit 1

clean:
	rm -rf build tachy lib/libtachy.a tests/tmp

FORCE:
