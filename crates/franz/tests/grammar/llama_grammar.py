"""Whether llama.cpp's own grammar engine takes each text: reads a JSON list of
{"grammar", "text"} on stdin, prints a JSON list of true/false (a grammar that does not parse is
an error). Run with the model server's venv (llama-cpp-python) and a GGUF whose vocabulary it
tokenizes with: python llama_grammar.py MODEL.gguf.

Each text is tokenized with the model's tokenizer and fed to a grammar sampler token by token,
as the server's sampler would see the model write it; a text is taken when every token is
allowed and the end of generation is allowed after the last (the grammar is complete)."""

import ctypes
import json
import sys

import llama_cpp


def main() -> None:
    llm = llama_cpp.Llama(model_path=sys.argv[1], vocab_only=True, verbose=False)
    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    eos = llama_cpp.llama_vocab_eos(vocab)

    def allowed(sampler, token: int) -> bool:
        data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
        candidates = llama_cpp.llama_token_data_array(data, 1, -1, False)
        llama_cpp.llama_sampler_apply(sampler, ctypes.byref(candidates))
        return data[0].logit != float("-inf")

    def takes(grammar: str, text: str) -> bool:
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
        if not sampler:
            raise SystemExit(f"llama.cpp cannot parse the grammar:\n{grammar}")
        try:
            for token in llm.tokenize(text.encode(), add_bos=False, special=False):
                if not allowed(sampler, token):
                    return False
                llama_cpp.llama_sampler_accept(sampler, token)
            return allowed(sampler, eos)
        finally:
            llama_cpp.llama_sampler_free(sampler)

    cases = json.load(sys.stdin)
    print(json.dumps([takes(c["grammar"], c["text"]) for c in cases]))


if __name__ == "__main__":
    main()
