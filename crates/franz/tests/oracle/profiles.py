"""The families' reference code as an oracle for tests/profiles_oracle.rs.

Reads one JSON object from stdin: {"sizes": [[family, w, h], ...], "uitars": [[reply, w, h], ...]}
and prints {"fixed": [bool, ...], "uitars": [[action_type, fractions or null], ...]}.

- sizes: whether (h, w) is a fixed point of the family's reference smart_resize:
  ui-tars 0.5.1 ui_tars.action_parser.smart_resize (its defaults) for ui-tars-1.5;
  qwen-vl-utils 0.0.14 vision_process.smart_resize with factor 28 (qwen2.5-vl) or 32
  (qwen3-vl) and its default min/max pixels. qwen_vl_utils imports torch at module level and
  torch is never installed: its functions are taken from the module's source instead.
- uitars: the reference parse_action_to_structure_output of a one-action reply for an image
  of w x h; the fractions of start_box (and end_box) as a point (a box's centre).
"""
import ast
import importlib.util
import json
import math
import sys
import typing

from ui_tars import action_parser


def qwen_functions():
    spec = importlib.util.find_spec("qwen_vl_utils")
    path = spec.submodule_search_locations[0] + "/vision_process.py"
    with open(path) as f:
        tree = ast.parse(f.read())
    wanted = {"round_by_factor", "ceil_by_factor", "floor_by_factor", "smart_resize"}
    ns = {"math": math, "Optional": typing.Optional, "Tuple": typing.Tuple, "os": __import__("os")}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in wanted:
            exec(compile(ast.Module(body=[node], type_ignores=[]), path, "exec"), ns)
        elif isinstance(node, ast.Assign) and all(
            isinstance(t, ast.Name) and t.id.isupper() for t in node.targets
        ):
            # the module's constants (MAX_RATIO, IMAGE_MIN_TOKEN_NUM...); those that need
            # the rest of the module (video readers) are left out
            try:
                exec(compile(ast.Module(body=[node], type_ignores=[]), path, "exec"), ns)
            except NameError:
                pass
    return ns["smart_resize"]


qwen_smart_resize = qwen_functions()


def fixed(family, w, h):
    if family == "ui-tars-1.5":
        return action_parser.smart_resize(h, w) == (h, w)
    factor = {"qwen2.5-vl": 28, "qwen3-vl": 32}[family]
    return qwen_smart_resize(h, w, factor=factor) == (h, w)


def point(box):
    v = json.loads(box)
    return [(v[0] + v[2]) / 2, (v[1] + v[3]) / 2]


def uitars(reply, w, h):
    out = action_parser.parse_action_to_structure_output(reply, 1000, h, w)
    a = out[0]
    inputs = a["action_inputs"]
    pts = [point(inputs[k]) for k in ("start_box", "end_box") if k in inputs]
    return [a["action_type"], pts]


def main():
    req = json.load(sys.stdin)
    res = {
        "fixed": [fixed(f, w, h) for f, w, h in req["sizes"]],
        "uitars": [uitars(r, w, h) for r, w, h in req["uitars"]],
    }
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
