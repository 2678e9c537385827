"""Writes a llama.cpp image projector (mmproj GGUF) for Gemma 3 with random weights.

The layout is the one llama.cpp's tools/mtmd/clip.cpp loads for `clip.projector_type=gemma3`
(a SigLIP vision tower, average pooling, an RMS norm and a projection into the text model):
384 px images in 14 px patches (27 x 27), pooled by a merge factor of 3 into 81 image tokens,
each projected from 1152 to 640 numbers (Gemma 3 270M's embedding width).

The weights are random: the point is that the server's real image path runs (decode, resize,
patches, encoder, tokens in the prompt), not that the model sees anything. The vision tower
has one block instead of SigLIP's 27 so that the file stays small (about 36 MB) and an image
costs well under a second on two cores.

Usage: write_mmproj.py OUT.gguf
"""

import sys

import numpy as np
from gguf import GGMLQuantizationType, GGUFWriter

IMAGE_SIZE = 384
PATCH_SIZE = 14
MERGE = 3
N_EMBD = 1152
N_FF = 4304
N_HEAD = 16
N_BLOCK = 1
N_EMBD_TEXT = 640
EPS = 1e-6


def random(rng, *shape, scale=0.02, dtype=np.float16):
    return (rng.standard_normal(shape, dtype=np.float32) * scale).astype(dtype)


def ones(n):
    return np.ones(n, dtype=np.float32)


def zeros(n):
    return np.zeros(n, dtype=np.float32)


def write_hparams(w):
    w.add_bool("clip.has_vision_encoder", True)
    w.add_string("clip.projector_type", "gemma3")
    w.add_bool("clip.use_gelu", True)
    w.add_uint32("clip.vision.image_size", IMAGE_SIZE)
    w.add_uint32("clip.vision.patch_size", PATCH_SIZE)
    w.add_uint32("clip.vision.embedding_length", N_EMBD)
    w.add_uint32("clip.vision.feed_forward_length", N_FF)
    w.add_uint32("clip.vision.block_count", N_BLOCK)
    w.add_uint32("clip.vision.projection_dim", N_EMBD_TEXT)
    w.add_uint32("clip.vision.attention.head_count", N_HEAD)
    w.add_float32("clip.vision.attention.layer_norm_epsilon", EPS)
    w.add_uint32("clip.vision.projector.scale_factor", MERGE)
    w.add_array("clip.vision.image_mean", [0.5, 0.5, 0.5])
    w.add_array("clip.vision.image_std", [0.5, 0.5, 0.5])


def write_tensors(w, rng):
    n_patches = (IMAGE_SIZE // PATCH_SIZE) ** 2
    # numpy shapes are ggml's ne reversed: ggml conv_2d wants a kernel of ne [14, 14, 3, 1152]
    w.add_tensor("v.patch_embd.weight", random(rng, N_EMBD, 3, PATCH_SIZE, PATCH_SIZE))
    w.add_tensor("v.patch_embd.bias", zeros(N_EMBD))
    # added to the f32 patches: ggml's CPU add takes no f16 operand there
    w.add_tensor("v.position_embd.weight", random(rng, n_patches, N_EMBD, dtype=np.float32))
    for i in range(N_BLOCK):
        blk = f"v.blk.{i}"
        for name in ("attn_q", "attn_k", "attn_v", "attn_out"):
            w.add_tensor(f"{blk}.{name}.weight", random(rng, N_EMBD, N_EMBD))
            w.add_tensor(f"{blk}.{name}.bias", zeros(N_EMBD))
        for name in ("ln1", "ln2"):
            w.add_tensor(f"{blk}.{name}.weight", ones(N_EMBD))
            w.add_tensor(f"{blk}.{name}.bias", zeros(N_EMBD))
        w.add_tensor(f"{blk}.ffn_up.weight", random(rng, N_FF, N_EMBD))
        w.add_tensor(f"{blk}.ffn_up.bias", zeros(N_FF))
        w.add_tensor(f"{blk}.ffn_down.weight", random(rng, N_EMBD, N_FF))
        w.add_tensor(f"{blk}.ffn_down.bias", zeros(N_EMBD))
    w.add_tensor("v.post_ln.weight", ones(N_EMBD))
    w.add_tensor("v.post_ln.bias", zeros(N_EMBD))
    w.add_tensor("mm.soft_emb_norm.weight", ones(N_EMBD))
    # ggml ne [640, 1152]: clip.cpp multiplies by its transpose, so 1152 -> 640
    w.add_tensor("mm.input_projection.weight", random(rng, N_EMBD, N_EMBD_TEXT, dtype=np.float32))


def main(out):
    rng = np.random.default_rng(0)
    w = GGUFWriter(out, "clip")
    w.add_name("franz test projector (Gemma 3, random weights)")
    w.add_file_type(GGMLQuantizationType.F16)
    write_hparams(w)
    write_tensors(w, rng)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: write_mmproj.py OUT.gguf")
    main(sys.argv[1])
