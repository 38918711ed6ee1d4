"""What a run or a night tells people: the static site, the markdown comment, the end-of-run table, the export."""
