"""Tiny random cross-encoders for the nli scorer's tests (no download): a word-level pair tokenizer and a BERT."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def pair_tokenizer(words: Iterable[str], path: Path):
    """A saved PreTrainedTokenizerFast that encodes (premise, hypothesis) pairs as [CLS] a [SEP] b [SEP]."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab: dict[str, int] = {}
    for w in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", *words]:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
                                   sep_token="[SEP]")
    fast.save_pretrained(path)
    return fast


def tiny_cross_encoder(path: Path, words: Iterable[str], id2label: dict[int, str], seed: int = 0):
    """A random BERT sequence classifier (hidden 16, one layer) with the given labels, saved in `path`."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    tokenizer = pair_tokenizer(words, path)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=128, num_labels=len(id2label), id2label=id2label, initializer_range=0.8,
        label2id={v: k for k, v in id2label.items()}, pad_token_id=tokenizer.pad_token_id,
    )
    model = BertForSequenceClassification(config).eval()
    model.save_pretrained(path)
    return model, tokenizer
