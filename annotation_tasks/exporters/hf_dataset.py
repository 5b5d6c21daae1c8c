"""A Hugging Face datasets layout: JSONL files per config and split, and a README.md dataset card.

    DIR/README.md              YAML front matter (configs, data_files per split) + the card: what a row is, the
                               label definitions, the splits and their sizes, how many rows carry no label and
                               what such a row is, the agreement figures, the aggregation
    DIR/<config>/<split>.jsonl one record per line (the exporters' records), <split>.csv beside it on request

`datasets.load_dataset(DIR)` reads the configs from the card; `load_dataset("json", data_files={...})` reads the
files directly (the card shows the call). Records stream from the exporters into one open file per split, so
memory stays flat. Everything is written into a temporary folder beside DIR and renamed at the end; a DIR that
holds anything but an earlier export of ours is never overwritten.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from annotation_tasks.exporters import csv_writer
from annotation_tasks.exporters.jsontext import json_bytes, json_value

MARKER = "<!-- written by FactCrowd export --format hf-dataset -->"

LABEL_DEFINITIONS: dict[str, dict[str, str]] = {
    "qa": {
        "supported": "the source states or clearly implies what the question-answer pair says",
        "not_supported": "the source contradicts it or does not say it (a QA whose answer span is not covered "
        "is not supported)",
    },
    "span": {
        "covered": "the content of the answer span is stated or implied by the source",
        "not_covered": "the source does not contain it",
    },
    "fact": {
        "S": "supported by the knowledge source",
        "NS": "not supported by the knowledge source",
        "IR": "irrelevant to the prompt (counted as not supported by FActScore)",
    },
}


SOFT_LABELS = [  # the card's words for exporters.certainty's fields
    "Soft labels (`qa` and `span` rows with votes): `posterior` is the probability that the row's crowd label is "
    "right, `posterior_ci95` its 95% interval and `soft_label` the probability of every label. Under the majority "
    "they are the Dirichlet(1) posterior of the label's share of the row's votes (three votes 3-0 give 0.8, 2-1 give "
    "0.6); under Dawid-Skene or GLAD the fitted model's posterior, its interval from draws of the workers' confusion "
    "matrices. An expert's adjudicated `label` replaces the crowd's; the fields still describe the crowd's label.",
]


class DatasetExportError(ValueError):
    """The target folder cannot take the dataset (it holds other files)."""


@dataclass
class Config:
    """One dataset config: its records (streamed), how a record names its split, and how to describe it."""

    name: str
    records: Iterable[dict[str, Any]]
    split_of: Callable[[dict[str, Any]], Any]
    row: str  # what one row is, in words
    label_field: str  # where the label is in a row
    labels: dict[str, str] = field(default_factory=dict)  # label value -> definition
    unlabelled_when: Callable[[dict[str, Any]], bool] | None = None  # a row without a label (counted in the card)
    unlabelled_means: str = ""  # what such a row is, in words
    sizes: dict[str, int] = field(default_factory=dict)  # filled while writing
    unlabelled: dict[str, int] = field(default_factory=dict)  # filled while writing


def split_name(value: Any) -> str:
    """A split name datasets accepts (word characters, dots between words); "train" when there is none."""
    text = re.sub(r"\W+", "_", str(value)).strip("_") if value not in (None, "") else ""
    return text or "train"


def _write_config(root: Path, config: Config, with_csv: bool) -> None:
    folder = root / config.name
    folder.mkdir(parents=True)
    handles: dict[str, BinaryIO] = {}
    keys: dict[str, None] = {}  # every key so far, in first-seen order (what _same_keys gives every row)
    names: dict[Any, str] = {}  # split_name of each split value seen
    uneven = False
    try:
        for record in config.records:
            if not uneven:
                record_keys = list(record)
                uneven = bool(keys) and record_keys != list(keys)
                keys.update(dict.fromkeys(record_keys))
            value = config.split_of(record)
            split = names.get(value) if isinstance(value, str) else None
            if split is None:
                split = split_name(value)
                if isinstance(value, str):
                    names[value] = split
            if split not in handles:
                handles[split] = (folder / f"{split}.jsonl").open("wb")
                config.sizes[split] = 0
                config.unlabelled[split] = 0
            handles[split].write(json_bytes(record) + b"\n")
            config.sizes[split] += 1
            if config.unlabelled_when is not None and config.unlabelled_when(record):
                config.unlabelled[split] += 1
    finally:
        for handle in handles.values():
            handle.close()
    if not handles:
        folder.rmdir()
        return
    if uneven:  # found while writing: the files are read back only when some row lacks a key
        _same_keys(folder, list(config.sizes))
    if with_csv:
        for split in config.sizes:
            with (folder / f"{split}.csv").open("w", encoding="utf-8", newline="") as out:
                csv_writer.csv_from_jsonl(folder / f"{split}.jsonl", out)


def _same_keys(folder: Path, splits: list[str]) -> None:
    """Give every row of a config the same keys (null where a row has none, e.g. `adjudication` on items nobody
    adjudicated): pyarrow's JSON reader infers one schema per block and refuses a key that appears later."""
    keys: dict[str, None] = {}
    uneven = False
    for split in splits:
        with (folder / f"{split}.jsonl").open("rb") as handle:
            for raw in handle:
                record_keys = list(json_value(raw))
                uneven = uneven or (bool(keys) and record_keys != list(keys))
                keys.update(dict.fromkeys(record_keys))
    if not uneven:
        return
    for split in splits:
        path = folder / f"{split}.jsonl"
        tmp = path.with_suffix(".tmp")
        with path.open("rb") as src, tmp.open("wb") as out:
            for raw in src:
                record = json_value(raw)
                out.write(json_bytes({k: record.get(k) for k in keys}) + b"\n")
        os.replace(tmp, path)


def _fmt(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def card(title: str, configs: list[Config], agreement: list[dict[str, Any]], aggregation: str,
         description: str = "") -> str:
    """The README.md dataset card (YAML front matter that datasets reads, then Markdown)."""
    yaml = ["---", f"pretty_name: {json.dumps(title)}", "configs:"]
    for i, config in enumerate(configs):
        yaml.append(f"- config_name: {config.name}")
        if i == 0:
            yaml.append("  default: true")
        yaml.append("  data_files:")
        for split in sorted(config.sizes):
            yaml += [f"  - split: {split}", f"    path: {config.name}/{split}.jsonl"]
    yaml.append("---")
    lines = [*yaml, MARKER, "", f"# {title}", ""]
    if description:
        lines += [description, ""]
    lines += [f"Exported by FactCrowd. The label of each row is the `{aggregation}` aggregation of the crowd's votes"
              + (" (ties go to the error label)." if aggregation == "majority" else
                 " (crowd-kit model; the report compares it with the majority)."), "", *SOFT_LABELS, ""]
    for config in configs:
        lines += [f"## Config `{config.name}`", "", f"One row per {config.row}; the label is in `{config.label_field}`.",
                  ""]
        if config.labels:
            lines += ["| label | definition |", "|---|---|"]
            lines += [f"| `{value}` | {text} |" for value, text in config.labels.items()]
            lines.append("")
        if config.unlabelled_when is None:
            lines += ["| split | rows |", "|---|---|"]
            lines += [f"| {split} | {config.sizes[split]} |" for split in sorted(config.sizes)]
        else:
            total = sum(config.unlabelled.values())
            lines += [f"Unlabelled rows: {total} of {sum(config.sizes.values())}. An unlabelled row has "
                      f"{config.unlabelled_means}. Filter them out before training or scoring on the label.", "",
                      "| split | rows | unlabelled |", "|---|---|---|"]
            lines += [f"| {split} | {config.sizes[split]} | {config.unlabelled.get(split, 0)} |"
                      for split in sorted(config.sizes)]
        lines.append("")
    if agreement:
        lines += ["## Agreement", "", "Fleiss' kappa and Krippendorff's alpha (nominal) of the crowd's votes, overall "
                  "and per group.", "",
                  "| level | group | items | labels | Fleiss' kappa | Krippendorff's alpha | unanimous % |",
                  "|---|---|---|---|---|---|---|"]
        for r in agreement:
            group = "all" if r.get("group") is None else f"{r.get('by')}={r['group']}"
            lines.append(f"| {r['level']} | {group} | {r['n_items']} | {r['n_labels']} | {_fmt(r['fleiss_kappa'])} | "
                         f"{_fmt(r['krippendorff_alpha'])} | {_fmt(r['percent_unanimous'])} |")
        lines.append("")
    lines += ["## Loading", "", "```python", "from datasets import load_dataset", ""]
    for config in configs:
        files = ", ".join(f'"{s}": "{config.name}/{s}.jsonl"' for s in sorted(config.sizes))
        lines.append(f'{config.name} = load_dataset("json", data_files={{{files}}})')
    lines += ["```", ""]
    return "\n".join(lines)


def write(out_dir: Path, title: str, configs: list[Config], *, agreement: list[dict[str, Any]], aggregation: str,
          description: str = "", with_csv: bool = False) -> dict[str, dict[str, int]]:
    """Write the dataset folder atomically; returns {config: {split: rows}}."""
    out_dir = Path(out_dir)
    if out_dir.exists() and any(out_dir.iterdir()):
        readme = out_dir / "README.md"
        if not (readme.is_file() and MARKER in readme.read_text(encoding="utf-8", errors="replace")):
            raise DatasetExportError(f"{out_dir} is not empty and holds no earlier dataset export: choose another -o")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        for config in configs:
            _write_config(tmp, config, with_csv)
        configs = [c for c in configs if c.sizes]  # a config without rows has no files to name
        if not configs:
            raise DatasetExportError("nothing to export: the project has no labelled items")
        (tmp / "README.md").write_text(card(title, configs, agreement, aggregation, description), encoding="utf-8")
        tmp.chmod(0o755)  # mkdtemp makes it private; a dataset folder is meant to be shared
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {c.name: dict(sorted(c.sizes.items())) for c in configs}
