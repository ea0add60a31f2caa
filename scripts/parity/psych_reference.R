# Reference values from R for the meta-evaluation statistics, written to
# test/core/metaEvaluation/fixtures/r-reference.json. Reads the inputs that meta_evaluation_reference.py wrote.
#
#   IRRCAC_SRC=<the R/ folder of Gwet's irrCAC package, public repository kgwet/irrCAC> \
#   Rscript scripts/parity/psych_reference.R
#
# - psych 2.2.9 ICC(x, lmer = FALSE): the six ICCs and F statistics (Shrout & Fleiss 1979; McGraw & Wong 1996);
# - psych 2.2.9 cohen.kappa: unweighted and weighted kappa, quadratic (its default w) and linear agreement weights;
# - irrCAC gwet.ac1.raw (Gwet's own implementation; run from the fetched source, never copied): p_a and p_e, from
#   which AC1 = (p_a - p_e) / (1 - p_e) unrounded (the package rounds its printed coefficient to 5 digits).
suppressMessages({
  library(jsonlite)
  library(psych)
  library(dplyr)
})
args <- commandArgs(trailingOnly = FALSE)
here <- dirname(normalizePath(sub("^--file=", "", args[grep("^--file=", args)])))
root <- normalizePath(file.path(here, "..", ".."))
fixtures <- file.path(root, "test", "core", "metaEvaluation", "fixtures")
ref <- fromJSON(file.path(fixtures, "meta-evaluation-reference.json"), simplifyVector = FALSE)
irr <- Sys.getenv("IRRCAC_SRC")
for (f in c("weights.gen.r", "agree.coeff3.raw.r")) source(file.path(irr, f))

num <- function(x) if (is.null(x) || is.na(x)) NULL else unbox(x)

icc <- lapply(ref$icc, function(case) {
  x <- do.call(rbind, lapply(case$data, function(r) unlist(r)))
  r <- ICC(x, lmer = FALSE)
  res <- r$results
  list(name = unbox(case$name),
       icc = setNames(lapply(res$ICC, unbox), c("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")),
       f = list(oneWay = unbox(res$F[1]), twoWay = unbox(res$F[2])))
})

kappa <- list()
for (case in ref$cohen) {
  a <- case$a; b <- case$b
  keep <- !vapply(a, is.null, TRUE) & !vapply(b, is.null, TRUE)
  if (!all(vapply(a[keep], is.numeric, TRUE))) next
  cats <- if (is.null(case$categories)) sort(unique(c(unlist(a[keep]), unlist(b[keep])))) else unlist(case$categories)
  if (length(cats) < 2) next
  x <- cbind(unlist(a[keep]), unlist(b[keep]))
  k <- length(cats)
  linear <- 1 - abs(outer(1:k, 1:k, "-")) / (k - 1)  # agreement weights; the default w is 1 - (i - j)^2/(k - 1)^2
  q <- suppressMessages(suppressWarnings(cohen.kappa(x, levels = cats)))
  l <- suppressMessages(suppressWarnings(cohen.kappa(x, w = linear, levels = cats)))
  kappa[[length(kappa) + 1]] <- list(name = unbox(case$name), unweighted = num(q$kappa), quadratic = num(q$weighted.kappa), linear = num(l$weighted.kappa))
}

ac1 <- list()
for (case in ref$reliability) {
  rows <- lapply(case$data, function(r) vapply(r, function(v) if (is.null(v)) NA_character_ else as.character(v), ""))
  m <- do.call(rbind, rows)
  cats <- vapply(case$ac1$categories, as.character, "")
  if (length(case$ac1$categories) == 0 || is.null(case$ac1$value)) next
  if (all(!is.na(suppressWarnings(as.numeric(m[!is.na(m)]))))) {
    m <- matrix(as.numeric(m), nrow = nrow(m))
    cats <- as.numeric(cats)
  }
  m <- m[rowSums(!is.na(m)) > 0, , drop = FALSE]  # irrCAC divides by a unit's number of ratings: units nobody rated go
  r <- suppressWarnings(suppressMessages(gwet.ac1.raw(m, categ.labels = cats)))
  pa <- r$est$pa; pe <- r$est$pe
  ac1[[length(ac1) + 1]] <- list(name = unbox(case$name), pa = unbox(pa), pe = unbox(pe), ac1 = unbox((pa - pe) / (1 - pe)))
}

out <- list(generatedBy = unbox("scripts/parity/psych_reference.R"), R = unbox(paste(R.version$major, R.version$minor, sep = ".")),
            psych = unbox(as.character(packageVersion("psych"))),
            irrCAC = unbox("kgwet/irrCAC 7fb7509236672b8601c96366ca720f12a0d5bb7b (run, not copied)"),
            icc = icc, kappa = kappa, ac1 = ac1)
writeLines(toJSON(out, digits = NA, auto_unbox = FALSE, null = "null"), file.path(fixtures, "r-reference.json"))
cat("wrote test/core/metaEvaluation/fixtures/r-reference.json:", length(icc), "ICC,", length(kappa), "kappa,", length(ac1), "AC1 cases\n")
