#!/usr/bin/env python3
"""check-firefox.py FILE - check a Firefox Profiler processed profile against
the required (non-optional) fields of format version 57, as the Firefox
Profiler's src/types/profile.ts declares them at that version, and every
index against the table it points into. Prints the thread names and exits 1
with a message on the first problem."""
import json
import sys

VERSION = 57
META = ['interval', 'startTime', 'processType', 'product', 'stackwalk', 'version',
        'preprocessedProfileVersion', 'markerSchema']
LIB = ['arch', 'name', 'path', 'debugName', 'debugPath', 'breakpadId', 'codeId']
THREAD = ['processType', 'processStartupTime', 'processShutdownTime', 'registerTime',
          'unregisterTime', 'pausedRanges', 'name', 'isMainThread', 'pid', 'tid', 'samples',
          'markers', 'stackTable', 'frameTable', 'funcTable', 'resourceTable', 'nativeSymbols']
TABLES = {
    'samples': ['stack', 'weight', 'weightType', 'length'],
    'markers': ['data', 'name', 'startTime', 'endTime', 'phase', 'category', 'length'],
    'stackTable': ['frame', 'prefix', 'length'],
    'frameTable': ['address', 'inlineDepth', 'category', 'subcategory', 'func', 'nativeSymbol',
                   'innerWindowID', 'line', 'column', 'length'],
    'funcTable': ['name', 'isJS', 'relevantForJS', 'resource', 'fileName', 'lineNumber',
                  'columnNumber', 'length'],
    'resourceTable': ['length', 'lib', 'name', 'host', 'type'],
    'nativeSymbols': ['libIndex', 'address', 'name', 'functionSize', 'length'],
}
COLORS = {'transparent', 'purple', 'green', 'orange', 'yellow', 'lightblue', 'blue', 'brown',
          'magenta', 'red', 'lightred', 'darkgrey', 'grey'}

def fail(msg):
    print('check-firefox: ' + msg)
    sys.exit(1)

def need(obj, keys, where):
    if not isinstance(obj, dict):
        fail('%s is not an object' % where)
    for k in keys:
        if k not in obj:
            fail('%s has no %s' % (where, k))

def index(v, n, where, allow=()):
    if v in allow:
        return
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < n:
        fail('%s: %r is not an index below %d' % (where, v, n))

def main():
    p = json.load(open(sys.argv[1]))
    need(p, ['meta', 'libs', 'shared', 'threads'], 'the profile')
    m = p['meta']
    need(m, META, 'meta')
    if m['preprocessedProfileVersion'] != VERSION:
        fail('preprocessedProfileVersion is %r, not %d' % (m['preprocessedProfileVersion'], VERSION))
    cats = m.get('categories', [])
    for c in cats:
        need(c, ['name', 'color', 'subcategories'], 'a category')
        if c['color'] not in COLORS or not c['subcategories']:
            fail('category %r: bad color or no subcategory' % c['name'])
    if cats and not any(c['color'] == 'grey' for c in cats):
        fail('no grey (default) category')
    schemas = {s['name'] for s in m['markerSchema']}
    for s in m['markerSchema']:
        need(s, ['name', 'display', 'fields'], 'a marker schema')
        for f in s['fields']:
            need(f, ['key', 'format'], 'a marker schema field')
    for lib in p['libs']:
        need(lib, LIB, 'a lib')
    strings = p['shared']['stringArray']
    if not all(isinstance(s, str) for s in strings):
        fail('stringArray holds a non-string')
    for t in p['threads']:
        need(t, THREAD, 'a thread')
        if not isinstance(t['pid'], str):
            fail('thread pid is not a string')
        for name, cols in TABLES.items():
            tab = t[name]
            need(tab, cols, 'thread %s %s' % (t['name'], name))
            n = tab['length']
            for c in cols:
                if c in ('length', 'weightType') or (c == 'weight' and tab[c] is None):
                    continue
                if not isinstance(tab[c], list) or len(tab[c]) != n:
                    fail('%s.%s does not have %d entries' % (name, c, n))
        st, fr, fn, rs = t['stackTable'], t['frameTable'], t['funcTable'], t['resourceTable']
        for i in range(st['length']):
            index(st['frame'][i], fr['length'], 'stack frame')
            if st['prefix'][i] is not None:
                index(st['prefix'][i], i, 'stack prefix (must come before)')
        for i in range(fr['length']):
            index(fr['func'][i], fn['length'], 'frame func')
            if fr['category'][i] is not None:
                index(fr['category'][i], len(cats), 'frame category')
        for i in range(fn['length']):
            index(fn['name'][i], len(strings), 'func name')
            index(fn['resource'][i], rs['length'], 'func resource', (-1,))
        for i in range(rs['length']):
            index(rs['name'][i], len(strings), 'resource name')
            if rs['lib'][i] is not None:
                index(rs['lib'][i], len(p['libs']), 'resource lib')
        s = t['samples']
        if 'time' not in s and 'timeDeltas' not in s:
            fail('samples have neither time nor timeDeltas')
        if s['weightType'] not in ('samples', 'tracing-ms', 'bytes'):
            fail('bad weightType %r' % s['weightType'])
        times = s.get('time', [])
        if len(times) != s['length'] or any(b < a for a, b in zip(times, times[1:])):
            fail('sample times are missing or not in order')
        for v in s['stack']:
            index(v, st['length'], 'sample stack', (None,))
        mk = t['markers']
        for i in range(mk['length']):
            index(mk['name'][i], len(strings), 'marker name')
            index(mk['category'][i], max(len(cats), 1), 'marker category')
            if mk['phase'][i] not in (0, 1, 2, 3):
                fail('bad marker phase')
            if mk['phase'][i] == 1 and mk['endTime'][i] < mk['startTime'][i]:
                fail('a marker ends before it starts')
            d = mk['data'][i]
            if d is not None and d.get('type') not in schemas:
                fail('marker data type %r has no schema' % d.get('type'))
        print('thread %s [%s]: %d samples, %d markers' % (t['name'], t['tid'], s['length'],
                                                         mk['length']))

main()
