#!/usr/bin/env python3
"""Checks that every file of core/ includes only headers of its own room or of
rooms below it, in the order written in docs/architecture.md between the marks

    <!-- rooms:begin -->
    | Order | Room | Directory |
    |---|---|---|
    | 1 | model | core/model/ |
    | 2 | hardware | core/hardware/ |
    <!-- rooms:end -->

(a lower Order is a lower room; a room may include itself and any lower room,
never a higher one). A file under core/ in no room is an error, so the table
stays complete; so is a core file including Qt or anything from ui/ or app/.
Quoted includes are resolved as the compiler does: beside the including file,
then from the repository root (the include path of gpuplanner_core).

    tools/rooms/check-layers.py [--root DIR] [--verbose]
    tools/rooms/check-layers.py --self-test

Exit status 0 when the rooms hold, 1 with one line per violation, 2 when the
table cannot be read. Python 3 standard library only.
"""
import argparse
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
ROW = re.compile(r'^\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|\s*`?([^|`]+?)`?\s*\|\s*$')
SOURCE_EXT = ('.h', '.hpp', '.cpp', '.cc', '.cxx', '.inc')


class TableError(Exception):
    pass


def read_rooms(architecture_md):
    try:
        with open(architecture_md, encoding='utf-8') as f:
            text = f.read()
    except OSError as e:
        raise TableError(f'{architecture_md}: {e.strerror}')
    m = re.search(r'<!-- rooms:begin -->(.*?)<!-- rooms:end -->', text, re.S)
    if not m:
        raise TableError(f'{architecture_md}: no <!-- rooms:begin --> ... <!-- rooms:end --> table')
    rooms = []
    for line in m.group(1).splitlines():
        r = ROW.match(line.strip())
        if r:
            directory = r.group(3).strip().rstrip('/') + '/'
            rooms.append((int(r.group(1)), r.group(2).strip(), directory))
    if not rooms:
        raise TableError(f'{architecture_md}: the rooms table has no rows ("| 1 | core | core/ |")')
    dirs = [d for _, _, d in rooms]
    if len(set(dirs)) != len(dirs):
        raise TableError(f'{architecture_md}: a directory is listed twice')
    return rooms


def room_of(path, rooms):
    """The room whose directory is the longest prefix of path (repo-relative, '/')."""
    best = None
    for order, name, directory in rooms:
        if path.startswith(directory) and (best is None or len(directory) > len(best[2])):
            best = (order, name, directory)
    return best


def core_files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, 'core')):
        dirnames.sort()
        for fn in sorted(filenames):
            if fn.endswith(SOURCE_EXT):
                out.append(os.path.relpath(os.path.join(dirpath, fn), root).replace(os.sep, '/'))
    return out


def resolve(root, including, target):
    """Repo-relative path of a quoted include, or None when it is not in the tree."""
    beside = os.path.normpath(os.path.join(os.path.dirname(including), target)).replace(os.sep, '/')
    if os.path.isfile(os.path.join(root, beside)):
        return beside
    from_root = os.path.normpath(target).replace(os.sep, '/')
    if os.path.isfile(os.path.join(root, from_root)):
        return from_root
    return None


def check(root, verbose=False):
    rooms = read_rooms(os.path.join(root, 'docs', 'architecture.md'))
    problems = []
    files = core_files(root)
    for path in files:
        mine = room_of(path, rooms)
        if mine is None:
            problems.append(f'{path}: in no room of docs/architecture.md')
            continue
        with open(os.path.join(root, path), encoding='utf-8', errors='replace') as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            line = text.count('\n', 0, m.start()) + 1
            kind, target = m.group(1), m.group(2)
            if kind == '<':
                if re.match(r'Q[A-Za-z]+', target.split('/')[0]):
                    problems.append(f'{path}:{line}: includes <{target}>: the core is Qt-free')
                continue
            dep = resolve(root, path, target)
            if dep is None:
                continue  # generated (embedded data) or outside the tree
            if not dep.startswith('core/'):
                problems.append(f'{path}:{line}: includes "{target}" ({dep}): the core includes nothing outside core/')
                continue
            theirs = room_of(dep, rooms)
            if theirs is None:
                continue  # reported once, as the file itself
            if theirs[0] > mine[0]:
                problems.append(f'{path}:{line}: room "{mine[1]}" ({mine[0]}) includes "{target}" of room '
                                f'"{theirs[1]}" ({theirs[0]}), which is above it')
    if verbose:
        counts = {}
        for path in files:
            r = room_of(path, rooms)
            if r:
                counts[r[1]] = counts.get(r[1], 0) + 1
        for order, name, directory in sorted(rooms):
            print(f'room {order} {name} ({directory}): {counts.get(name, 0)} files')
    return problems


def self_test():
    def tree(files, table):
        d = tempfile.mkdtemp(prefix='check-layers-')
        for rel, content in files.items():
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, 'w', encoding='utf-8') as f:
                f.write(content)
        os.makedirs(os.path.join(d, 'docs'), exist_ok=True)
        with open(os.path.join(d, 'docs', 'architecture.md'), 'w', encoding='utf-8') as f:
            f.write('x\n<!-- rooms:begin -->\n| Order | Room | Directory |\n|---|---|---|\n' + table + '<!-- rooms:end -->\n')
        return d

    two = '| 1 | model | `core/model/` |\n| 2 | estimate | `core/estimate/` |\n'
    cases = [
        # (files, table, expected number of problems, what)
        ({'core/a.h': '#include "b.h"\n', 'core/b.h': '#include <vector>\n'}, '| 1 | core | core/ |\n', 0, 'flat core'),
        ({'core/model/m.h': '', 'core/estimate/e.cpp': '#include "core/model/m.h"\n#include "e.h"\n',
          'core/estimate/e.h': '#include "../model/m.h"\n'}, two, 0, 'downward includes'),
        ({'core/model/m.h': '#include "core/estimate/e.h"\n', 'core/estimate/e.h': ''}, two, 1, 'upward include'),
        ({'core/model/m.h': '#include "../estimate/e.h"\n', 'core/estimate/e.h': ''}, two, 1, 'upward, relative'),
        ({'core/model/m.h': '', 'core/other/x.h': ''}, two, 1, 'file in no room'),
        ({'core/model/m.h': '#include <QString>\n', 'ui/w.h': ''}, two, 1, 'Qt in the core'),
        ({'core/model/m.h': '#include "ui/w.h"\n', 'ui/w.h': ''}, two, 1, 'ui/ in the core'),
    ]
    failed = 0
    for files, table, expected, what in cases:
        got = check(tree(files, table))
        ok = len(got) == expected
        failed += 0 if ok else 1
        print(f'{"ok  " if ok else "FAIL"} {what}: {len(got)} problem(s), expected {expected}' +
              ('' if ok else '\n     ' + '\n     '.join(got)))
    try:
        check(tree({'core/a.h': ''}, ''))
        print('FAIL empty table: accepted')
        failed += 1
    except TableError:
        print('ok   empty table: refused')
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description='Check the include order of the rooms of core/.')
    ap.add_argument('--root', default=os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')))
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--self-test', action='store_true')
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    try:
        problems = check(a.root, a.verbose)
    except TableError as e:
        print(f'check-layers: {e}', file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    if problems:
        print(f'check-layers: {len(problems)} include(s) break the rooms of docs/architecture.md', file=sys.stderr)
        return 1
    print(f'check-layers: {len(core_files(a.root))} core files, the rooms hold')
    return 0


if __name__ == '__main__':
    sys.exit(main())
