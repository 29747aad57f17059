#!/usr/bin/env python3
"""json-schema-check.py SCHEMA.md [AT=]EXPORT.json... - check exports against docs/json-schema.md.

AT=FILE checks FILE against the part of the template at AT (tachy.environment=env.json:
the object of tachy env --json).

The schema is the document itself: its ```json block (comments and "..."
dropped) is the template, and the names it gives in backticks or quotes
anywhere are the documented fields. For each export:
  - every field of the template is present, with the template's type (a number
    for a number; null only for a field the document says may be null: a name
    in backticks in a paragraph that says "null"), unless the template's comment
    says "only with" (parameters);
  - every field of the export is in the template or named by the document;
  - the objects whose keys are data (summary's figures, counters' events,
    parameters' names) are checked entry by entry against the template's entries.
Prints "FILE: ok (N fields checked)" or each problem; exits 1 on a problem."""
import json
import re
import sys

# Objects whose keys are names of data, not fields: their values share a template.
MAPS = {"results[].parameters", "results[].tachy.summary", "results[].tachy.counters",
        "results[].tachy.runs[].counters", "results[].tachy.left_out_runs[].counters"}
# Per-run entries of tachy.left_out_runs are shaped as those of tachy.runs.
ALIASES = {"results[].tachy.left_out_runs": "results[].tachy.runs"}


def load_schema(path):
    text = open(path, encoding="utf-8").read()
    block = re.search(r"```json\n(.*?)```", text, re.S).group(1)
    optional = set()
    lines = []
    for line in block.split("\n"):
        code, _, comment = line.partition("//")
        m = re.search(r'"(\w+)":', code)
        if m and "only with" in comment:
            optional.add(m.group(1))
        lines.append(code)
    src = "\n".join(lines)
    src = re.sub(r",\s*\.\.\.(?=\s*[\]}])", "", src)
    template = json.loads(src)
    named = set(re.findall(r'`([A-Za-z_][\w.:-]*)', text)) | set(re.findall(r'"([a-z_]+)"', text))
    documented = set()
    for n in named:
        documented.update(n.split("."))
    nullable = set()
    for para in re.split(r"\n\s*\n", text):
        if re.search(r"\bnull\b", para) and "```" not in para:
            for n in re.findall(r"`([A-Za-z_][\w.]*)`", para):
                nullable.add(n.split(".")[-1])
    return template, documented, nullable, optional


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


class Checker:
    def __init__(self, schema):
        self.template, self.documented, self.nullable, self.optional = schema
        self.problems = []
        self.checked = 0

    def value(self, path, key, tmpl, val):
        self.checked += 1
        if tmpl is None:  # a field the document names but the template does not show
            return
        tk, vk = kind(tmpl), kind(val)
        if vk == "null" and tk != "null":
            if key not in self.nullable:
                self.problems.append(f"{path}: null, but the document does not say it may be")
            return
        if tk != vk:
            self.problems.append(f"{path}: {vk}, the document shows {tk}")
            return
        if vk == "array" and tmpl:
            for i, v in enumerate(val):
                self.value(f"{path}[{i}]", key, tmpl[0], v)
        elif vk == "object":
            self.obj(path, tmpl, val)

    def obj(self, path, tmpl, val):
        generic = re.sub(r"\[\d+\]", "[]", path).lstrip(".")
        for a, b in ALIASES.items():
            if generic.startswith(a):
                generic = b + generic[len(a):]
        if generic in MAPS:
            entry = {}
            for t in tmpl.values():  # the union of the template's entries
                if isinstance(t, dict):
                    entry = {**t, **entry}
            first = next(iter(tmpl.values()), None)
            for k, v in val.items():
                if isinstance(first, dict):
                    for f in first:
                        if f not in v and f not in self.optional:
                            self.problems.append(f"{path}.{k}: no {f} (the document shows it)")
                    self.obj_fields(f"{path}.{k}", entry, v)
                else:
                    self.value(f"{path}.{k}", k, first, v)
            return
        for k in tmpl:
            if k not in val and k not in self.optional:
                self.problems.append(f"{path}: no {k} (the document shows it)")
        self.obj_fields(path, tmpl, val)

    def obj_fields(self, path, tmpl, val):
        for k, v in val.items():
            if k not in tmpl and k not in self.documented:
                self.problems.append(f"{path}.{k}: not in the document")
                continue
            self.value(f"{path}.{k}", k, tmpl.get(k), v)


def main():
    schema = load_schema(sys.argv[1])
    bad = 0
    for f in sys.argv[2:]:
        c = Checker(schema)
        at, _, name = f.rpartition("=")
        tmpl = schema[0]
        for k in filter(None, at.split(".")):
            tmpl = tmpl[k]
        c.obj(at, tmpl, json.load(open(name, encoding="utf-8")))
        if c.problems:
            bad = 1
            for p in c.problems:
                print(f"{f}: {p.lstrip('.')}")
        else:
            print(f"{f}: ok ({c.checked} fields checked)")
    return bad


if __name__ == "__main__":
    sys.exit(main())
