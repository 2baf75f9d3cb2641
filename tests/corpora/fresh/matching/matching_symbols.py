"""Correct answers to matching_symbols."""
A = {1: "e", 2: "i", 3: "l", 4: "b", 5: "n", 6: "h", 7: "k", 8: "c", 9: "f"}
RIGHT = {
    "int keys, upper case": {"match_symbols": {k: v.upper() for k, v in A.items()}},
    "string keys, bracketed letters": {"match_symbols": {str(k): f"({v})" for k, v in A.items()}},
    "string keys with spaces, reversed order": {"match_symbols": {f" {k} ": f"{v})" for k, v in reversed(A.items())}},
}
