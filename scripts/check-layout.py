#!/usr/bin/env python3
"""scripts/check-layout.py — docs/layout.md against the code: every include and every
link-level call between modules, each checked against the arrows layout.md declares.

    python3 scripts/check-layout.py [--root DIR] [--build DIR] [--list]

The declared arrows are read from docs/layout.md: a module is a paragraph that begins
with **`FOLDER/`** (src/NAME/ is the module NAME; runner/, lib/ and kernels/ are
runner, lib and kernels) and holds exactly one arrow sentence, after text in
parentheses is dropped:
    "May call a, b and c."          the modules it may include and call
    "May call every module above."  every module of an earlier paragraph
    "May call x below it."          an arrow to a later paragraph, declared as such
    "Calls nothing."                (also "Calls nothing of ours.")
Every folder of src/ and runner/, lib/, kernels/ must have its paragraph, and no two
paragraphs name one module.

The code: every `#include "..."` at the start of a line in src/, runner/, lib/,
include/ and kernels/, resolved as the compiler does (the including file's folder, then
the include paths: src/, kernels/, and runner/ for the runner, include/ for the
library; for kernels/, src/knobs/, since codegen embeds knobs.def beside them; an
include found in none of them is a third-party header, not ours), and, when --build
names a build tree, the undefined symbols of each object file of the project's targets
(nm) matched to the module whose object defines them (an object whose source is gone
is stale and skipped). An include or call from module A to module B is an error unless
A == B or layout.md declares A -> B; so is a module's private header (internal.h,
engine/run.h) included from another folder, a module that may call one listed below it
without saying so ("below it": the only cycles are the declared ones), and, with
--build, an arrow declared but used by no include or call (layout.md would then say
more than the code does; without --build this is not checked, since some arrows are
only calls, through another module's header). Errors name the file and line (for a
call: the object's source and the symbol).

Exit 0 when the code matches, 1 with one line per problem on stderr, 2 on bad usage
or an unreadable layout.md. --list prints every include and call between modules.
"""
import argparse
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
PARA_HEAD = re.compile(r'^\*\*`([a-z_/.]+)/`\*\*')
SOURCE_EXT = ('.c', '.h', '.cu', '.cuh', '.def')
PRIVATE = {'engine/run.h'}  # besides every internal.h
# Files cmake generates into the build tree, and the module each belongs to.
GENERATED = {'embedded_kernels.c': 'codegen', 'version_info.c': 'util', 'croqsparse_embedded.c': 'lib'}
# Targets whose objects are the modules' code (tests and tools are not modules).
TARGETS = ('croq', 'croq_launch', 'croq_runner_core', 'croq-runner', 'croqtuner', 'croqsparse',
           'croqsparse_static')


def module_of(rel):
    """The module a path relative to the root belongs to, or None (tests, scripts...)."""
    parts = rel.split('/')
    if parts[0] == 'src' and len(parts) > 2:
        return parts[1]
    if parts[0] in ('runner', 'lib', 'kernels') and len(parts) > 1:
        return parts[0]
    if parts[0] == 'include' and len(parts) > 1:
        return 'lib'  # include/croqsparse.h is the library's public header
    return None


def folder_module(folder):
    parts = folder.split('/')
    if parts[0] == 'src' and len(parts) == 2:
        return parts[1]
    if len(parts) == 1 and parts[0] in ('runner', 'lib', 'kernels'):
        return parts[0]
    return None


def strip_parens(text):
    out, depth = [], 0
    for ch in text:
        if ch == '(':
            depth += 1
        elif ch == ')':
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return ''.join(out)


def read_layout(path, errors):
    """{module: set of modules it may call}, the order of the paragraphs, {module: line}, the
    modules that may call every module above them, and the (module, target) arrows declared
    against the order ("May call x below it")."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    paras, cur, start = [], [], 0
    for i, line in enumerate(lines + ['']):
        if line.strip():
            if not cur:
                start = i + 1
            cur.append(line)
        elif cur:
            paras.append((start, ' '.join(cur)))
            cur = []
    declared, order, where, every, back = {}, [], {}, set(), set()
    for lineno, text in paras:
        m = PARA_HEAD.match(text)
        if not m:
            continue
        mod = folder_module(m.group(1))
        if mod is None:
            errors.append(f'{path}:{lineno}: **`{m.group(1)}/`** is not a module folder (src/NAME/, runner/, lib/, kernels/)')
            continue
        if mod in declared:
            errors.append(f'{path}:{lineno}: a second paragraph for module {mod} (the first is at line {where[mod]})')
            continue
        flat = re.sub(r'\s+', ' ', strip_parens(text))
        calls = re.findall(r'May call ([^.;]*)\.', flat)
        nothing = re.findall(r'\b[Cc]alls nothing\b', flat)
        if len(calls) + len(nothing) != 1:
            errors.append(f'{path}:{lineno}: module {mod}: want exactly one "May call a, b and c." or "Calls nothing." '
                          f'sentence, found {len(calls) + len(nothing)}')
            continue
        if nothing:
            targets = set()
        elif calls[0].strip() == 'every module above':
            targets = set(order)
            every.add(mod)
        else:
            targets = set()
            for t in re.split(r',|\band\b', calls[0]):
                t = t.strip()
                if t.endswith(' below it'):  # declared against the order, on purpose
                    t = t[:-len(' below it')].strip()
                    back.add((mod, t))
                if t:
                    targets.add(t)
        declared[mod], where[mod] = targets, lineno
        order.append(mod)
    for mod, targets in declared.items():
        for t in sorted(targets - set(declared)):
            errors.append(f'{path}:{where[mod]}: module {mod} may call "{t}", which is no module of layout.md')
    return declared, order, where, every, back


def tree_modules(root):
    mods = {d for d in os.listdir(os.path.join(root, 'src')) if os.path.isdir(os.path.join(root, 'src', d))}
    return mods | {d for d in ('runner', 'lib', 'kernels') if os.path.isdir(os.path.join(root, d))}


def include_dirs(rel):
    top = rel.split('/')[0]
    if top == 'kernels':  # embedded beside knobs.def (cmake/embed.cmake), so it is found as "knobs.def"
        return ['kernels', 'src/knobs']
    dirs = ['src', 'kernels']
    if top == 'runner':
        dirs.insert(0, 'runner')
    if top in ('lib', 'include'):
        dirs.append('include')
    return dirs


def scan_includes(root):
    """[(file, line, included text, resolved path relative to root)] for our headers."""
    out = []
    for top in ('src', 'runner', 'lib', 'include', 'kernels'):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding='utf-8', errors='replace') as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        inc = m.group(1)
                        cands = [os.path.join(os.path.dirname(rel), inc)] + [os.path.join(d, inc) for d in include_dirs(rel)]
                        for c in cands:
                            c = os.path.normpath(c)
                            if os.path.isfile(os.path.join(root, c)):
                                out.append((rel, lineno, inc, c))
                                break
    return out


def nm_symbols(objs):
    """{object path: (global symbols it defines, symbols it leaves undefined)}, one nm for all."""
    out = {o: (set(), set()) for o in objs}
    res = subprocess.run(['nm', '-P', '-A'] + list(objs), capture_output=True, text=True, check=True)
    for line in res.stdout.splitlines():
        path, _, rest = line.rpartition(': ')
        f = rest.split()
        if path not in out or len(f) < 2:
            continue
        sym, kind = f[0], f[1]
        if kind in 'Uw':
            out[path][1].add(sym)
        elif kind.isupper():  # a global definition (T, D, B, R, C, ...)
            out[path][0].add(sym)
    return out


def scan_calls(root, build, errors):
    """[(source of the object, symbol, module of the caller, module of the definition)]."""
    objs = []  # (module, source rel, path)
    for target in TARGETS:
        base = os.path.join(build, 'CMakeFiles', target + '.dir')
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith('.o'):
                    continue
                path = os.path.join(dirpath, name)
                src = os.path.relpath(path, base)[:-2]
                if '/' in src and not os.path.isfile(os.path.join(root, src)):
                    continue  # a stale object: its source was moved or removed since it was built
                mod = GENERATED.get(src) if '/' not in src else module_of(src)
                if mod is None:
                    errors.append(f'{path}: an object of target {target} whose source {src} is in no module')
                    continue
                objs.append((mod, src, path))
    if not objs:
        errors.append(f'{build}: no object files of {", ".join(TARGETS)} (build the tree first)')
        return []
    defs, undefs = {}, []
    try:
        syms = nm_symbols([path for _, _, path in objs])
    except (OSError, subprocess.CalledProcessError) as e:
        errors.append(f'{build}: nm (binutils) could not read the object files: {e}')
        return []
    for mod, src, path in objs:
        d, u = syms[path]
        for s in d:
            defs.setdefault(s, set()).add(mod)
        undefs.append((mod, src, u))
    calls = set()
    for mod, src, u in undefs:
        for s in sorted(u):
            owners = defs.get(s)
            if owners and mod not in owners:
                for o in sorted(owners):
                    calls.add((src, s, mod, o))
    return sorted(calls)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    ap.add_argument('--build', help='a build tree: also check the calls between object files')
    ap.add_argument('--list', action='store_true', help='print every include and call between modules')
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    layout = os.path.join(root, 'docs', 'layout.md')
    errors = []
    try:
        declared, order, where, every, back = read_layout(layout, errors)
    except OSError as e:
        print(f'check-layout: {layout}: {e.strerror}', file=sys.stderr)
        return 2
    for mod in sorted(tree_modules(root) - set(declared)):
        errors.append(f'{layout}: module {mod} (its folder exists) has no paragraph')
    for i, frm in enumerate(order):  # calling only modules above it: no cycle can form
        for to in sorted(declared[frm] & set(order[i + 1:])):
            if (frm, to) in back:
                continue
            errors.append(f'{layout}:{where[frm]}: {frm} may call {to}, which is listed below it '
                          f'(line {where[to]}): move one paragraph')

    used = set()
    for rel, lineno, inc, target in scan_includes(root):
        frm, to = module_of(rel), module_of(target)
        if frm is None or to is None or frm == to:
            continue
        if a.list:
            print(f'include {frm} -> {to}  {rel}:{lineno}  "{inc}"')
        used.add((frm, to))
        if os.path.basename(target) == 'internal.h' or target.replace('src/', '', 1) in PRIVATE:
            errors.append(f'{rel}:{lineno}: includes {target}, private to module {to}')
        elif to not in declared.get(frm, set()):
            errors.append(f'{rel}:{lineno}: includes "{inc}" ({to}), but docs/layout.md declares no arrow {frm} -> {to}')
    if a.build:
        bad = {}  # (source, module called): its symbols, one error each
        for src, sym, frm, to in scan_calls(root, os.path.abspath(a.build), errors):
            if a.list:
                print(f'call {frm} -> {to}  {src}  {sym}')
            used.add((frm, to))
            if to not in declared.get(frm, set()):
                bad.setdefault((src, frm, to), []).append(sym)
        for (src, frm, to), syms in sorted(bad.items()):
            more = f' and {len(syms) - 3} more' if len(syms) > 3 else ''
            errors.append(f'{src}: calls {", ".join(syms[:3])}{more} ({to}), but docs/layout.md declares no arrow '
                          f'{frm} -> {to}')
    for frm in order if a.build else ():  # some arrows are calls only (through another module's header)
        if frm in every:
            continue  # "every module above" is a licence, not a list of uses
        for to in sorted(declared[frm]):
            if (frm, to) not in used:
                errors.append(f'{layout}:{where[frm]}: declares {frm} -> {to}, which no include or call uses')
    for e in errors:
        print(f'check-layout: {e}', file=sys.stderr)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
