"""Correct answers to matching_code."""
A = {1: "g", 2: "h", 3: "o", 4: "d", 5: "k", 6: "n", 7: "b", 8: "j", 9: "m", 10: "e"}
RIGHT = {
    "int keys": {"match_code": dict(A)},
    "string keys, upper case": {"match_code": {str(k): v.upper() for k, v in A.items()}},
    "letters with full stops and spaces": {"match_code": {k: f" {v}. " for k, v in A.items()}},
}
