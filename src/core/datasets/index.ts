/**
 * Importers of datasets researchers already have (see docs/importing.md): the generic CSV/JSONL importer and its
 * column mapping. The AnnoMI importer (`../annomi`) and the annotation-table importer (`../annotations`) read their
 * own layouts; the latter is also a preset mapping here (`annotation-table`).
 */
export { coherenceReader, contextTurns, DatasetImportError, formatOf, importDataset, importOutputFiles, previewItems, readDataset, sniffJsonFormat, speakerResolver, textTurns, writeImportOutputs, type Dataset, type DatasetFormat, type DatasetImportOptions, type DatasetImportResult, type DatasetRecord } from './genericImport';
export { dimensionFromValues, guessDatasetMapping, type GuessedMapping } from './guessFromData';
export { dimensionOf, mappingRuleProblems, readDimensionValue, rubricOfMapping } from './studyRubric';
export { checkColumns, guessMapping, MAPPING_PRESETS, MAPPING_SCHEMA, mappedColumns, MappingError, validateMapping, type DatasetMapping, type DimensionColumn, type JsonContextMapping, type ListsLabelsMapping, type LongLabelsMapping, type RowsContextMapping, type RubricMapping, type TextContextMapping, type WideLabelsMapping } from './mapping';
