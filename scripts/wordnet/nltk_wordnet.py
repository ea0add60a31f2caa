"""NLTK's WordNet reader on Debian's wordnet-base, without nltk_data downloads.

NLTK wants ``<NLTK_DATA>/corpora/wordnet/`` holding the WordNet 3.0 database files plus a ``lexnames`` file,
which Debian does not ship (45 lines: number, lexicographer file name, syntactic category). ``nltk_wordnet()``
builds that folder in a temporary directory (symbolic links to /usr/share/wordnet), points NLTK at it and
returns NLTK 3.8's ``WordNetCorpusReader``. Used by the parity reference and the data builder only.
"""
import os
import tempfile

WORDNET_DIR = "/usr/share/wordnet"
FILES = [f"{kind}.{pos}" for kind in ("data", "index") for pos in ("noun", "verb", "adj", "adv")] + [
    f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")
]
LEXNAMES = (
    ["adj.all", "adj.pert", "adv.all"]
    + ["noun." + n for n in "Tops act animal artifact attribute body cognition communication event feeling food group location motive object person phenomenon plant possession process quantity relation shape state substance time".split()]
    + ["verb." + n for n in "body change cognition communication competition consumption contact creation emotion motion perception possession social stative weather".split()]
    + ["adj.ppl"]
)
CATEGORY = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}


def nltk_wordnet():
    """NLTK's WordNet 3.0 reader over Debian's files (NLTK_DATA is set to a temporary folder)."""
    root = tempfile.mkdtemp(prefix="nltk_data_")
    corpus = os.path.join(root, "corpora", "wordnet")
    os.makedirs(corpus)
    for f in FILES:
        os.symlink(os.path.join(WORDNET_DIR, f), os.path.join(corpus, f))
    with open(os.path.join(corpus, "lexnames"), "w") as fp:
        for i, name in enumerate(LEXNAMES):
            fp.write(f"{i:02d}\t{name}\t{CATEGORY[name.split('.')[0]]}\n")
    os.environ["NLTK_DATA"] = root
    import nltk

    nltk.data.path.insert(0, root)
    from nltk.corpus import wordnet

    wordnet.ensure_loaded()
    assert wordnet.get_version() == "3.0", wordnet.get_version()
    return wordnet
