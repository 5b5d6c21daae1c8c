"""The FactCrowd domain: content to judge, work units, labels, analysis, crowd platforms."""
