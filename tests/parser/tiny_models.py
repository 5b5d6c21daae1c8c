"""Tiny random models saved in a temp dir, so tests run the real loading and generation code without downloads.

A word-level fast tokenizer (tokenizers library) with T5's special tokens (<pad>, </s>, <unk>, <extra_id_N>),
a T5 of d_model 16 with one layer, and a BERT token classifier in the nominalization-classifier format.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

EXTRA_IDS = [f"<extra_id_{i}>" for i in range(10)]


def word_tokenizer(words: Iterable[str], path: Path, *, bert: bool = False):
    """A saved PreTrainedTokenizerFast over `words` (split on whitespace; special tokens split out first)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] if bert else ["<pad>", "</s>", "<unk>", *EXTRA_IDS]
    vocab: dict[str, int] = {}
    for w in [*specials, *words]:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]" if bert else "<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    if bert:
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])]
        )
        fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]",
                                       cls_token="[CLS]", sep_token="[SEP]")
    else:
        tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", vocab["</s>"])])
        fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
                                       additional_special_tokens=EXTRA_IDS)
    fast.save_pretrained(path)
    return fast


def tiny_t5(path: Path, words: Iterable[str], seed: int = 0):
    """A randomly initialised T5 (d_model 16, one layer) and its tokenizer, saved in `path`."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    tokenizer = word_tokenizer(words, path)
    torch.manual_seed(seed)
    config = T5Config(
        vocab_size=len(tokenizer), d_model=16, d_kv=8, d_ff=32, num_layers=1, num_decoder_layers=1, num_heads=2,
        decoder_start_token_id=tokenizer.pad_token_id, pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id, dropout_rate=0.0,
    )
    model = T5ForConditionalGeneration(config)
    model.save_pretrained(path)
    return model, tokenizer


def teach(model, tokenizer, pairs: list[tuple[str, str]], path: Path, steps: int = 120) -> None:
    """Overfit the tiny model on a few (input, output) pairs, then save it: generation becomes predictable."""
    import torch

    torch.set_num_threads(1)  # a tiny model: threads only add contention
    model.train()
    optim = torch.optim.Adam(model.parameters(), lr=3e-2)
    enc = tokenizer([p for p, _ in pairs], return_tensors="pt", padding=True)
    labels = tokenizer([t for _, t in pairs], return_tensors="pt", padding=True).input_ids
    labels[labels == tokenizer.pad_token_id] = -100
    for _ in range(steps):
        optim.zero_grad()
        loss = model(input_ids=enc.input_ids, attention_mask=enc.attention_mask, labels=labels).loss
        loss.backward()
        optim.step()
    model.eval()
    model.save_pretrained(path)


def tiny_nominal_classifier(path: Path, words: Iterable[str], true_bias: float = 0.0):
    """A random BERT token classifier with id2label {0: 'True', 1: 'False'} (the release's), saved in `path`.

    true_bias shifts the classifier's bias so that every word is (positive) or is not (negative) eventive.
    """
    import torch
    from transformers import BertConfig, BertForTokenClassification

    tokenizer = word_tokenizer(words, path, bert=True)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, num_labels=2, id2label={0: "True", 1: "False"},
                        label2id={"True": 0, "False": 1}, pad_token_id=tokenizer.pad_token_id)
    model = BertForTokenClassification(config)
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor([true_bias, -true_bias]))
    model.save_pretrained(path)
    return model, tokenizer
