# cut.py IN OUT - halve the cell count of the middle table-leaf page of the
# SQLite file IN: rows vanish from the b-tree, and SQLite reads on without
# an error.
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
ps = int.from_bytes(d[16:18], 'big') or 65536
leaves = [p for p in range(1, len(d) // ps) if d[p * ps] == 0x0d]
p = leaves[len(leaves) // 2] * ps
n = int.from_bytes(d[p + 3:p + 5], 'big')
d[p + 3:p + 5] = (n // 2).to_bytes(2, 'big')
open(sys.argv[2], 'wb').write(d)
