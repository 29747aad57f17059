/* t-safefile.c - the one opener of files that others control: a FIFO, a
 * link to /dev/zero, a socket and a directory are refused at once with
 * their reason; a file replaced since it was mapped, or between the stat
 * and the open, is refused as such; a mapping whose path was replaced is
 * read from /proc/PID/map_files as root, else refused; sizes are bounded;
 * zlib data inflates exactly to its size or is refused (a bomb that lies
 * stops at its size); and a compressed ELF image holding a 64 MiB bomb
 * section and a DWARF section over the bound gives libdw only the sections
 * it needs, each within the bound, with a warning naming the section. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

#include "check.h"
#include "tachy/debugcache.h"
#include "tachy/safefile.h"

static char dir[] = "/tmp/t-safefile.XXXXXX";
static char path[256], other[256];

static void
put(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	if (CHECK(f != NULL)) {
		fputs(text, f);
		fclose(f);
	}
}

static void
refused(const char *p, int code, const char *why)
{
	char w[TY_SAFEFILE_WHY];
	int fd = ty_safefile_open(p, NULL, NULL, w);

	CHECK_INT(fd, code);
	CHECK_STR(w, why);
	if (fd >= 0)
		close(fd);
}

static void
kinds(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	char p[256];
	int sk;

	/* a FIFO with no writer: an open that would never return */
	snprintf(p, sizeof(p), "%s/fifo", dir);
	CHECK(mkfifo(p, 0644) == 0);
	refused(p, -EINVAL, "is a FIFO");
	snprintf(p, sizeof(p), "%s/zero", dir);
	CHECK(symlink("/dev/zero", p) == 0);
	refused(p, -EINVAL, "is a character device");
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/sock", dir);
	sk = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(sk >= 0 && bind(sk, (struct sockaddr *)&a, sizeof(a)) == 0);
	refused(a.sun_path, -EINVAL, "is a socket");
	close(sk);
	refused(dir, -EINVAL, "is a directory");
	snprintf(p, sizeof(p), "%s/missing", dir);
	refused(p, -ENOENT, strerror(ENOENT));
}

static void
regular(void)
{
	struct ty_safefile_want w = {0, 0, 10, 0};
	char why[TY_SAFEFILE_WHY], buf[16], *text = NULL;
	struct stat st;
	size_t len = 0;
	int fd;

	put(path, "hello, world\n");
	fd = ty_safefile_open(path, NULL, &st, why);
	if (CHECK(fd >= 0)) {
		CHECK(read(fd, buf, sizeof(buf)) == 13);
		CHECK(st.st_size == 13);
		close(fd);
	}
	/* over the size limit */
	CHECK_INT(ty_safefile_open(path, &w, NULL, why), -EFBIG);
	CHECK_STR(why, "is larger than 10 bytes (13)");
	CHECK_INT(ty_safefile_read(path, &w, &text, &len, why), -EFBIG);
	w.max_size = 13;
	if (CHECK(ty_safefile_read(path, &w, &text, &len, why) == 0)) {
		CHECK(len == 13 && strcmp(text, "hello, world\n") == 0);
		free(text);
	}
	/* a link where no link is taken (a name in /tmp): refused, followed else */
	CHECK(symlink(path, other) == 0);
	w.nofollow = 1;
	CHECK_INT(ty_safefile_open(other, &w, NULL, why), -EINVAL);
	CHECK_STR(why, "is a symbolic link");
	w.nofollow = 0;
	fd = ty_safefile_open(other, &w, NULL, why);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(unlink(other) == 0);
}

/* Replaced since it was mapped: another inode at the path. */
static void
replaced(void)
{
	struct ty_safefile_want w = {0};
	char why[TY_SAFEFILE_WHY];
	struct stat st;
	int fd;

	put(path, "the mapped file\n");
	CHECK(stat(path, &st) == 0);
	w.dev = st.st_dev;
	w.ino = st.st_ino;
	fd = ty_safefile_open(path, &w, NULL, why);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	put(other, "a decoy\n");
	CHECK(rename(other, path) == 0);
	CHECK_INT(ty_safefile_open(path, &w, NULL, why), -ESTALE);
	CHECK_STR(why, "was replaced on disk since it was mapped");
	CHECK(ty_safefile_same(&st, st.st_dev, st.st_ino));
	CHECK(!ty_safefile_same(&st, st.st_dev, st.st_ino + 1));
}

/* Between the stat and the open: the file is swapped for another, or for
 * a FIFO (opened without blocking, then refused). */
static int swap_to_fifo;

static void
swap(const char *p)
{
	if (swap_to_fifo) {
		CHECK(unlink(p) == 0 && mkfifo(p, 0644) == 0);
		return;
	}
	put(other, "swapped in\n");
	CHECK(rename(other, p) == 0);
}

static void
between(void)
{
	char why[TY_SAFEFILE_WHY];

	put(path, "first\n");
	ty_safefile_set_between_hook(swap);
	CHECK_INT(ty_safefile_open(path, NULL, NULL, why), -ESTALE);
	CHECK_STR(why, "changed while it was being opened");
	put(path, "first\n");
	swap_to_fifo = 1;
	CHECK_INT(ty_safefile_open(path, NULL, NULL, why), -EINVAL);
	CHECK_STR(why, "is a FIFO");
	ty_safefile_set_between_hook(NULL);
	CHECK(unlink(path) == 0);
}

/* A mapping of ours whose file is replaced: /proc/self/map_files holds the
 * old one (readable by root). */
static void
mapped(void)
{
	char src[4200], why[TY_SAFEFILE_WHY], buf[32] = "";
	struct stat st;
	void *m;
	int fd = -1, r;

	put(path, "the mapped file\n");
	CHECK(stat(path, &st) == 0);
	r = ty_safefile_mapped(path, (uint32_t)getpid(), 0, 0, st.st_dev, st.st_ino, src,
			       sizeof(src), &fd, why);
	CHECK_INT(r, 0);
	CHECK_STR(src, path);
	fd = open(path, O_RDONLY);
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (!CHECK(m != MAP_FAILED))
		return;
	put(other, "a decoy\n");
	CHECK(rename(other, path) == 0);
	r = ty_safefile_mapped(path, (uint32_t)getpid(), (uintptr_t)m, (uintptr_t)m + 4096,
			       st.st_dev, st.st_ino, src, sizeof(src), &fd, why);
	CHECK_STR(why, "was replaced on disk since it was mapped");
	if (geteuid() == 0) {
		CHECK_INT(r, 1);
		CHECK(strncmp(src, "/proc/self/fd/", 14) == 0);
		if (CHECK(fd >= 0)) {
			int f2 = ty_safefile_open(src, NULL, NULL, why);
			CHECK(f2 >= 0 && read(f2, buf, sizeof(buf) - 1) == 16);
			CHECK_STR(buf, "the mapped file\n");
			if (f2 >= 0)
				close(f2);
			close(fd);
		}
	} else {
		printf("t-safefile: not root: /proc/PID/map_files is not readable, refused\n");
		CHECK_INT(r, -1);
	}
	munmap(m, 4096);
}

static void
needed(void)
{
	CHECK(ty_safefile_section_needed(".debug_info"));
	CHECK(ty_safefile_section_needed(".zdebug_line"));
	CHECK(ty_safefile_section_needed(".eh_frame"));
	CHECK(ty_safefile_section_needed(".gnu_debugdata"));
	CHECK(!ty_safefile_section_needed(".debug_bomb"));
	CHECK(!ty_safefile_section_needed(".debug_loc"));
	CHECK(!ty_safefile_section_needed(".data"));
}

#ifdef HAVE_ZLIB
/* SIZE bytes of BYTE, deflated: a malloc'd stream, its length in *LEN. */
static unsigned char *
deflated(size_t size, int byte, size_t *len)
{
	unsigned char *in = malloc(size ? size : 1), *out;
	uLongf n = compressBound((uLong)size);

	out = malloc(n);
	memset(in, byte, size);
	if (compress2(out, &n, in, (uLong)size, 9) != Z_OK)
		n = 0;
	free(in);
	*len = n;
	return out;
}

static void
inflating(void)
{
	size_t len, big = (size_t)64 << 20;
	unsigned char *z = deflated(big, 0, &len), *out = malloc(big + 16), small[100];

	CHECK(len > 0 && len < big / 500);
	CHECK_INT(ty_safefile_inflate(z, len, out, big), 0);
	CHECK(out[0] == 0 && out[big - 1] == 0);
	/* a header that lies: 100 bytes said, 64 MiB in the stream */
	CHECK_INT(ty_safefile_inflate(z, len, small, sizeof(small)), -EFBIG);
	/* more said than there is */
	CHECK_INT(ty_safefile_inflate(z, len, out, big + 16), -EINVAL);
	free(z);
	z = deflated(50, 'x', &len);
	CHECK_INT(ty_safefile_inflate(z, len, small, sizeof(small)), -EINVAL);
	CHECK_INT(ty_safefile_inflate(z, len, small, 50), 0);
	CHECK(small[0] == 'x' && small[49] == 'x');
	memcpy(small + 60, "garbage!", 8);
	CHECK_INT(ty_safefile_inflate(small + 60, 8, out, 50), -EINVAL);
	free(z);
	free(out);
}

#ifdef HAVE_LIBELF
/* An ELF image in memory: sections NAMES[i] with DATA[i][LEN[i]], FLAGS[i]. */
static unsigned char *
elf_image(int n, const char *const *names, unsigned char **data, const size_t *len,
	  const uint64_t *flags, size_t *total)
{
	size_t off = sizeof(Elf64_Ehdr), strsz = 11, at = 1, i;
	unsigned char *img;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;

	for (i = 0; i < (size_t)n; i++)
		off += (len[i] + 7) & ~(size_t)7, strsz += strlen(names[i]) + 1;
	*total = off + ((strsz + 7) & ~(size_t)7) + (size_t)(n + 2) * sizeof(Elf64_Shdr);
	img = calloc(1, *total);
	eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = (Elf64_Half)(n + 2);
	eh->e_shstrndx = (Elf64_Half)(n + 1);
	eh->e_shoff = *total - (size_t)(n + 2) * sizeof(Elf64_Shdr);
	sh = (Elf64_Shdr *)(img + eh->e_shoff);
	off = sizeof(Elf64_Ehdr);
	for (i = 0; i < (size_t)n; i++) {
		Elf64_Shdr *s = &sh[i + 1];
		memcpy(img + off, data[i], len[i]);
		s->sh_name = (Elf64_Word)at;
		s->sh_type = SHT_PROGBITS;
		s->sh_flags = flags[i];
		s->sh_offset = off;
		s->sh_size = len[i];
		s->sh_addralign = 1;
		off += (len[i] + 7) & ~(size_t)7;
		strcpy((char *)img + eh->e_shoff - ((strsz + 7) & ~(size_t)7) + at, names[i]);
		at += strlen(names[i]) + 1;
	}
	sh[n + 1].sh_name = (Elf64_Word)at;
	sh[n + 1].sh_type = SHT_STRTAB;
	sh[n + 1].sh_offset = eh->e_shoff - ((strsz + 7) & ~(size_t)7);
	sh[n + 1].sh_size = strsz;
	strcpy((char *)img + sh[n + 1].sh_offset + at, ".shstrtab");
	return img;
}

/* CLAIM bytes said in an Elf64_Chdr before the stream Z[N]. */
static unsigned char *
chdr(uint64_t claim, unsigned char *z, size_t n, size_t *len)
{
	Elf64_Chdr ch = {ELFCOMPRESS_ZLIB, 0, claim, 1};
	unsigned char *s = malloc(sizeof(ch) + n);

	memcpy(s, &ch, sizeof(ch));
	memcpy(s + sizeof(ch), z, n);
	*len = sizeof(ch) + n;
	free(z);
	return s;
}

static Elf_Scn *
section(Elf *e, const char *name, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;
	size_t strndx;

	elf_getshdrstrndx(e, &strndx);
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, out) &&
		    strcmp(elf_strptr(e, strndx, out->sh_name), name) == 0)
			return scn;
	return NULL;
}

static void
bomb(void)
{
	const char *names[] = {".debug_bomb", ".debug_info", ".debug_line", ".debug_abbrev",
			       ".text"};
	unsigned char *data[5], abbrev[3] = {1, 2, 3};
	size_t len[5], n, total;
	uint64_t flags[5] = {SHF_COMPRESSED, SHF_COMPRESSED, SHF_COMPRESSED, 0, SHF_ALLOC};
	struct ty_debugcache_out o;
	unsigned char *img, *z;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	Elf *e;

	ty_safefile_set_inflate_max((size_t)4 << 20);
	z = deflated((size_t)64 << 20, 0, &n); /* not needed: never inflated */
	data[0] = chdr((size_t)64 << 20, z, n, &len[0]);
	z = deflated((size_t)5 << 20, 0, &n); /* over the bound of 4 MiB */
	data[1] = chdr((size_t)5 << 20, z, n, &len[1]);
	z = deflated(1000, 'L', &n);
	data[2] = chdr(1000, z, n, &len[2]);
	data[3] = abbrev;
	len[3] = 3;
	data[4] = abbrev;
	len[4] = 3;
	img = elf_image(5, names, data, len, flags, &total);
	elf_version(EV_CURRENT);
	e = elf_memory((char *)img, total);
	if (!CHECK(e != NULL))
		return;
	CHECK_INT(ty_debugcache_get(NULL, "", e, "/x/prog", &o), 0);
	CHECK_STR(o.why, "the section .debug_info of /x/prog would take 5 MiB, over tachy's bound "
			 "of 4 MiB a section: not read (lines and inline frames that need it are "
			 "left out)");
	if (CHECK(o.elf != NULL)) {
		CHECK(section(o.elf, ".debug_bomb", &sh) == NULL);
		CHECK(section(o.elf, ".debug_info", &sh) == NULL);
		CHECK(section(o.elf, ".text", &sh) == NULL);
		scn = section(o.elf, ".debug_line", &sh);
		if (CHECK(scn != NULL)) {
			CHECK(!(sh.sh_flags & SHF_COMPRESSED));
			d = elf_getdata(scn, NULL);
			CHECK(d && d->d_size == 1000 && ((char *)d->d_buf)[999] == 'L');
		}
		scn = section(o.elf, ".debug_abbrev", &sh);
		CHECK(scn && (d = elf_getdata(scn, NULL)) && d->d_size == 3 &&
		      memcmp(d->d_buf, abbrev, 3) == 0);
	}
	ty_debugcache_out_close(&o);
	elf_end(e);
	/* nothing compressed: libdw reads the file itself */
	flags[0] = flags[1] = flags[2] = 0;
	names[0] = names[1] = names[2] = ".debug_str";
	free(img);
	img = elf_image(5, names, data, len, flags, &total);
	e = elf_memory((char *)img, total);
	CHECK_INT(ty_debugcache_get(NULL, "", e, "/x/prog", &o), 0);
	CHECK(o.elf == NULL && o.why[0] == '\0');
	elf_end(e);
	free(img);
	free(data[0]);
	free(data[1]);
	free(data[2]);
	ty_safefile_set_inflate_max(0);
	CHECK(ty_safefile_inflate_max() == TY_SAFEFILE_INFLATE_MAX);
}
#endif
#endif

int
main(void)
{
	char cmd[300];

	if (!CHECK(mkdtemp(dir) != NULL))
		return check_done();
	snprintf(path, sizeof(path), "%s/file", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	kinds();
	regular();
	replaced();
	between();
	mapped();
	needed();
#ifdef HAVE_ZLIB
	inflating();
#ifdef HAVE_LIBELF
	bomb();
#endif
#else
	printf("t-safefile: built without zlib: inflating not tested\n");
#endif
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return check_done();
}
