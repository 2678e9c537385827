"""The late-2026 families' own mapping code as an oracle for tests/families_oracle.rs.

Reads one JSON object from stdin:
  {"sizes": [[family, w, h], ...], "points": [[family, vx, vy, W, H, image_w, image_h], ...]}
and prints {"fixed": [bool, ...], "points": [[x, y], ...]}:
- sizes: whether (w, h) is an image the family's own resize leaves unchanged (GLM-4.6V has
  none: true);
- points: the pixel the family's own code makes of the model's (vx, vy) on a screen of W x H
  (the working area) when the model was sent an image_w x image_h image, from its top-left
  (ShowUI's and OpenCUA's fractions are given as vx / 10000, vy / 10000).

Each function below is copied from the family's source (repository and file named); only the
names of its arguments were changed to fit, and nothing of its arithmetic.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profiles import qwen_smart_resize  # noqa: E402  (qwen-vl-utils 0.0.14's own function)


# meituan/EvoCUA mm_agents/utils/qwen_vl_utils.py
def evocua_round_by_factor(number, factor):
    return round(number / factor) * factor


def evocua_ceil_by_factor(number, factor):
    return math.ceil(number / factor) * factor


def evocua_floor_by_factor(number, factor):
    return math.floor(number / factor) * factor


def evocua_smart_resize(height, width, factor=28, min_pixels=56 * 56, max_pixels=14 * 14 * 4 * 1280, max_long_side=8192):
    if height < 2 or width < 2:
        raise ValueError(f"height:{height} or width:{width} must be larger than factor:{factor}")
    elif max(height, width) / min(height, width) > 200:
        raise ValueError(f"absolute aspect ratio must be smaller than 100, got {height} / {width}")

    if max(height, width) > max_long_side:
        beta = max(height, width) / max_long_side
        height, width = int(height / beta), int(width / beta)

    h_bar = evocua_round_by_factor(height, factor)
    w_bar = evocua_round_by_factor(width, factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = evocua_floor_by_factor(height / beta, factor)
        w_bar = evocua_floor_by_factor(width / beta, factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = evocua_ceil_by_factor(height * beta, factor)
        w_bar = evocua_ceil_by_factor(width * beta, factor)
    return h_bar, w_bar


# meituan/EvoCUA mm_agents/evocua/evocua_agent.py, _parse_response_s2.adjust_coordinates,
# coordinate_type "relative" (the agent's default)
def evocua_point(x, y, original_width, original_height):
    # relative: scale from 0..999 grid
    x_scale = original_width / 999
    y_scale = original_height / 999
    return int(x * x_scale), int(y * y_scale)


# X-PLUG/MobileAgent Mobile-Agent-v3.5/computer_use/run_gui_owl_1_5_for_pc.py,
# rescale_coordinates (one key)
def gui_owl_point(x, y, resized_width, resized_height):
    return int(x / 1000 * resized_width), int(y / 1000 * resized_height)


# Tongyi-MAI/MAI-UI src/mai_naivigation_agent.py: SCALE_FACTOR = 999, the point normalized
# to [0, 1] by dividing by it; the device then takes that fraction of its width and height
SCALE_FACTOR = 999


def mai_ui_point(point_x, point_y, width, height):
    point_x = point_x / SCALE_FACTOR
    point_y = point_y / SCALE_FACTOR
    return point_x * width, point_y * height


# hud-evals' GLM-4.6V computer tool (hud/tools/computer/glm.py), GLMComputerTool._scale_coord
GLM_COORDINATE_SPACE = 999


def glm_point(x, y, environment_width, environment_height):
    return (
        int(x * (environment_width - 1) / GLM_COORDINATE_SPACE),
        int(y * (environment_height - 1) / GLM_COORDINATE_SPACE),
    )


# microsoft/fara src/fara/_prompts.py
IMAGE_FACTOR = 28
MIN_PIXELS = 4 * 28 * 28
MAX_PIXELS = 16384 * 28 * 28
MAX_RATIO = 200


def fara_round_by_factor(number, factor):
    return round(number / factor) * factor


def fara_ceil_by_factor(number, factor):
    return math.ceil(number / factor) * factor


def fara_floor_by_factor(number, factor):
    return math.floor(number / factor) * factor


def fara_smart_resize(height, width, factor=IMAGE_FACTOR, min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS):
    if max(height, width) / min(height, width) > MAX_RATIO:
        raise ValueError(
            f"absolute aspect ratio must be smaller than {MAX_RATIO}, got {max(height, width) / min(height, width)}"
        )
    h_bar = max(factor, fara_round_by_factor(height, factor))
    w_bar = max(factor, fara_round_by_factor(width, factor))
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = fara_floor_by_factor(height / beta, factor)
        w_bar = fara_floor_by_factor(width / beta, factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = fara_ceil_by_factor(height * beta, factor)
        w_bar = fara_ceil_by_factor(width * beta, factor)
    return h_bar, w_bar


# microsoft/fara src/fara/fara_agent.py, proc_coords
def fara_point(x, y, og_w, og_h, rsz_w, rsz_h):
    scale_x = og_w / rsz_w
    scale_y = og_h / rsz_h
    return x * scale_x, y * scale_y


# xlang-ai/OpenCUA evaluation/agentnetbench/agent/opencua.py, _smart_resize_qwen25 with its
# default smart_resize_kwargs (factor 28, min_pixels 3136, max_pixels 12845056)
def opencua_smart_resize(width, height):
    factor = 28
    min_pixels = 3136
    max_pixels = 12845056

    # Round to multiples of factor
    w_bar = max(1, round(width / factor)) * factor
    h_bar = max(1, round(height / factor)) * factor

    prod = w_bar * h_bar
    if prod > max_pixels:
        beta = (width * height / max_pixels) ** 0.5
        w_bar = max(1, int((width / beta) // factor) * factor)
        h_bar = max(1, int((height / beta) // factor) * factor)
    elif prod < min_pixels:
        beta = (min_pixels / (width * height)) ** 0.5
        w_bar = int(((width * beta) + factor - 1) // factor) * factor
        h_bar = int(((height * beta) + factor - 1) // factor) * factor

    return int(w_bar), int(h_bar)


# xlang-ai/OpenCUA evaluation/agentnetbench/agent/opencua.py, _maybe_normalize_coordinates:
# pixels of the resized image to fractions; the screen takes that fraction of its size
def opencua_point(x_val, y_val, new_w, new_h, width, height):
    rel_x = x_val / float(new_w)
    rel_y = y_val / float(new_h)
    return rel_x * width, rel_y * height


# H Company's agent-loop docs (hub.hcompany.ai/agent-loop), Holo3 / Holo3.1's coordinates
def holo3_point(x, y, screenshot_width, screenshot_height):
    abs_x = int((x / 1000) * screenshot_width)
    abs_y = int((y / 1000) * screenshot_height)
    return abs_x, abs_y


# trycua/cua libs/python/agent/cua_agent/loops/holo.py, HoloConfig.predict_click (Holo1.5):
# the point in pixels of the resized image, mapped back to the original size
def holo15_point(x, y, orig_w, orig_h, proc_w, proc_h):
    sx = orig_w / float(proc_w)
    sy = orig_h / float(proc_h)
    return x * sx, y * sy  # the source then rounds: int(round(...))


# inclusionAI/UI-Venus Venus_framework/policy/ui_venus_policy.py, the 1000x1000 conversion
def ui_venus_point(x, y, width, height):
    actual_x = int(x * width / 1000)
    actual_y = int(y * height / 1000)
    return actual_x, actual_y


# Yan98/GTA1 README.md's inference example: pred_x *= scale_x, scale_x = width / resized_width
def gta1_point(pred_x, pred_y, width, height, resized_width, resized_height):
    scale_x, scale_y = width / resized_width, height / resized_height
    return pred_x * scale_x, pred_y * scale_y


# OSU-NLP-Group/UGround grounding/uground_qwen2vl.py: x_abs = int(x_ratio / 1000 * width)
def uground_point(x_ratio, y_ratio, width, height):
    x_abs = int(x_ratio / 1000 * width)
    y_abs = int(y_ratio / 1000 * height)
    return x_abs, y_abs


# OS-Copilot/OS-Atlas README.md: a 0..1000 box (x1, y1), (x2, y2), "convert these relative
# coordinates back to the original image dimensions"; the click is the box's centre
def os_atlas_point(x1, y1, x2, y2, width, height):
    return (x1 + x2) / 2 / 1000 * width, (y1 + y2) / 2 / 1000 * height


# showlab/ShowUI QUICK_START.md draw_point: x, y = point[0] * width, point[1] * height
def showui_point(px, py, width, height):
    return px * width, py * height


# google's computer-use tool as trycua/cua ports it (libs/python/agent/cua_agent/loops/
# gemini.py, _denormalize)
def gemini_denormalize(v, size):
    return max(0, min(size - 1, int(round(v / 1000 * size))))


# xlang-ai/OpenCUA evaluation/agentnetbench/agent/opencua.py: with a coord_type other than
# "qwen25" the lines are left as they are, fractions of the screen
def opencua_relative_point(x_val, y_val, width, height):
    return x_val * width, y_val * height


def fixed(family, w, h):
    if family == "evocua":
        return evocua_smart_resize(h, w, factor=32, max_pixels=16 * 16 * 4 * 12800) == (h, w)
    if family in ("gui-owl-1.5", "mai-ui"):
        return qwen_smart_resize(h, w, factor=32) == (h, w)
    if family == "fara-7b":
        return fara_smart_resize(h, w, factor=14 * 2, min_pixels=3136, max_pixels=12845056) == (h, w)
    if family in ("opencua", "opencua-relative"):
        return opencua_smart_resize(w, h) == (w, h)
    if family == "glm-4.6v":
        return True
    if family in ("holo3", "ui-venus-1.5"):
        return qwen_smart_resize(h, w, factor=32) == (h, w)
    if family in ("holo1.5", "uground", "os-atlas"):
        return qwen_smart_resize(h, w, factor=28, min_pixels=3136, max_pixels=12845056) == (h, w)
    if family == "gta1":
        return qwen_smart_resize(h, w, factor=28, min_pixels=3136, max_pixels=4096 * 2160) == (h, w)
    if family == "showui":
        return qwen_smart_resize(h, w, factor=28, min_pixels=256 * 28 * 28, max_pixels=1344 * 28 * 28) == (h, w)
    if family == "gemini-computer":
        return True
    raise ValueError(family)


def point(family, vx, vy, w, h, iw, ih):
    if family == "evocua":
        return evocua_point(vx, vy, w, h)
    if family == "gui-owl-1.5":
        return gui_owl_point(vx, vy, w, h)
    if family == "mai-ui":
        return mai_ui_point(vx, vy, w, h)
    if family == "glm-4.6v":
        return glm_point(vx, vy, w, h)
    if family == "fara-7b":
        return fara_point(vx, vy, w, h, iw, ih)
    if family == "opencua":
        return opencua_point(vx, vy, iw, ih, w, h)
    if family == "holo3":
        return holo3_point(vx, vy, w, h)
    if family == "holo1.5":
        return holo15_point(vx, vy, w, h, iw, ih)
    if family == "ui-venus-1.5":
        return ui_venus_point(vx, vy, w, h)
    if family == "gta1":
        return gta1_point(vx, vy, w, h, iw, ih)
    if family == "uground":
        return uground_point(vx, vy, w, h)
    if family == "os-atlas":
        # a zero-size box at the point: its centre is the point
        return os_atlas_point(vx, vy, vx, vy, w, h)
    if family == "showui":
        return showui_point(vx / 10000, vy / 10000, w, h)
    if family == "opencua-relative":
        return opencua_relative_point(vx / 10000, vy / 10000, w, h)
    if family == "gemini-computer":
        return gemini_denormalize(vx, w), gemini_denormalize(vy, h)
    raise ValueError(family)


def main():
    req = json.load(sys.stdin)
    res = {
        "fixed": [fixed(f, w, h) for f, w, h in req["sizes"]],
        "points": [list(point(*p)) for p in req["points"]],
    }
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
