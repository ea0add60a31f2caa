"""Krippendorff's alpha of every USR Topical-Chat quality (Mehri & Eskenazi, ACL 2020, `tc_usr_data.json`) at the
ordinal and the interval level, computed by the `krippendorff` package (pln-fing-udelar/fast-krippendorff at
b1eb616, run as a reference, not copied) on the release as it is: one unit per response record (360), one coder per
annotator named in the record's "annotators" list, None where a rating is missing. Prints JSON to stdout; the
release states no licence, so only these numbers are kept (test/fixtures/usr-tc/usr-alpha-reference.json).

    git --git-dir=<fetched fast-krippendorff> archive b1eb616 krippendorff | tar -x -C /tmp/kripp
    KRIPPENDORFF_SRC=/tmp/kripp /usr/bin/python3 scripts/parity/usr_alpha_reference.py tc_usr_data.json

Needs Debian python3-numpy.
"""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.environ["KRIPPENDORFF_SRC"])
import krippendorff  # noqa: E402  (the reference, from the fetched repository)
import numpy as np  # noqa: E402

QUALITIES = ["Understandable", "Natural", "Maintains Context", "Engaging", "Uses Knowledge", "Overall"]

path = sys.argv[1]
raw = open(path, "rb").read()
records = json.loads(raw)
coders = sorted({a for r in records for a in r["annotators"]})
out = {
    "release": {"file": os.path.basename(path), "sha256": hashlib.sha256(raw).hexdigest()},
    "reference": {"package": "krippendorff (pln-fing-udelar/fast-krippendorff) b1eb616", "numpy": np.__version__, "script": "scripts/parity/usr_alpha_reference.py"},
    "coders": coders,
    "units": sum(len(r["responses"]) for r in records),
    "alpha": {},
}
for q in QUALITIES:
    data = []  # coders × units
    for c in coders:
        row = []
        for r in records:
            for resp in r["responses"]:
                ratings = resp[q]
                row.append(float(ratings[r["annotators"].index(c)]) if c in r["annotators"] and ratings[r["annotators"].index(c)] is not None else np.nan)
        data.append(row)
    data = np.array(data, dtype=float)
    out["alpha"][q] = {level: float(krippendorff.alpha(reliability_data=data, level_of_measurement=level)) for level in ("nominal", "ordinal", "interval")}
print(json.dumps(out, indent=1))
