/**
 * Importers of datasets researchers already have (see docs/importing.md): the generic CSV/JSONL importer and its
 * column mapping. The AnnoMI importer (`../annomi`) and the annotation-table importer (`../annotations`) read their
 * own layouts; the latter is also a preset mapping here (`annotation-table`).
 */
export { contextTurns, DatasetImportError, formatOf, importDataset, previewItems, readDataset, type Dataset, type DatasetImportOptions, type DatasetImportResult, type DatasetRecord } from './genericImport';
export { checkColumns, guessMapping, MAPPING_PRESETS, MAPPING_SCHEMA, mappedColumns, MappingError, validateMapping, type DatasetMapping, type JsonContextMapping, type LongLabelsMapping, type RowsContextMapping, type WideLabelsMapping } from './mapping';
