# clone.py DB N - commits c002 .. cNNN, each a copy of c001's result (a
# history of N commits made in one transaction, quicker than N adds).
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
c = db.cursor()
for i in range(2, int(sys.argv[2]) + 1):
    c.execute("INSERT INTO commits (rev, commit_order) VALUES (?, ?)", ("c%03d" % i, i))
    cid = c.lastrowid
    c.execute("INSERT INTO results (benchmark, command, commit_id, machine_id, added, source, "
              "environment, tags) SELECT benchmark, command, ?, machine_id, added, source, "
              "environment, tags FROM results WHERE id = 1", (cid,))
    rid = c.lastrowid
    c.execute("INSERT INTO samples (result_id, figure, unit, n, vals) SELECT ?, figure, unit, "
              "n, vals FROM samples WHERE result_id = 1", (rid,))
db.commit()
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
