#!/usr/bin/env python3
"""elfdamage.py IN OUT KIND - copy the ELF64 little-endian file IN to OUT with
its .symtab damaged one way, for t-symbols' warnings about damaged tables.

KIND: entsize0, entsize7 (the table's sh_entsize), size (not a whole number of
entries), offset (the table past the file's end), link-range (sh_link to no
section), link-type (sh_link to a section that is no string table), strtab-size
(the string table past the file's end), strtab-nul (its last byte not NUL),
names (every symbol's st_name past the string table), shndx (every function's
st_shndx to no section)."""
import struct
import sys

src, dst, kind = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
assert b[:4] == b'\x7fELF' and b[4] == 2 and b[5] == 1, 'an ELF64 little-endian file'
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum = struct.unpack_from('<HH', b, 0x3a)

def sh(i):
    return shoff + i * shentsize

def field(i, off, fmt, value=None):
    if value is None:
        return struct.unpack_from(fmt, b, sh(i) + off)[0]
    struct.pack_into(fmt, b, sh(i) + off, value)

SH_TYPE, SH_OFFSET, SH_SIZE, SH_LINK, SH_ENTSIZE = 4, 24, 32, 40, 56
sym = next(i for i in range(shnum) if field(i, SH_TYPE, '<I') == 2)  # SHT_SYMTAB
link = field(sym, SH_LINK, '<I')
off, size = field(sym, SH_OFFSET, '<Q'), field(sym, SH_SIZE, '<Q')

if kind == 'entsize0':
    field(sym, SH_ENTSIZE, '<Q', 0)
elif kind == 'entsize7':
    field(sym, SH_ENTSIZE, '<Q', 7)
elif kind == 'size':
    field(sym, SH_SIZE, '<Q', size - 5)
elif kind == 'offset':
    field(sym, SH_OFFSET, '<Q', len(b) + 4096)
elif kind == 'link-range':
    field(sym, SH_LINK, '<I', 999)
elif kind == 'link-type':
    field(sym, SH_LINK, '<I', sym)
elif kind == 'strtab-size':
    field(link, SH_SIZE, '<Q', len(b) * 4)
elif kind == 'strtab-nul':
    end = field(link, SH_OFFSET, '<Q') + field(link, SH_SIZE, '<Q')
    b[end - 1] = ord('x')
elif kind in ('names', 'shndx'):
    for k in range(1, size // 24):
        e = off + k * 24
        if kind == 'names':
            struct.pack_into('<I', b, e, 0xfffffff0)
        elif b[e + 4] & 0xf == 2:  # STT_FUNC
            struct.pack_into('<H', b, e + 6, 0xfe00)
else:
    sys.exit('unknown kind ' + kind)
open(dst, 'wb').write(b)
