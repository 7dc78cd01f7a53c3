-- The data generation: one number that changes with every change to what
-- the pages show. A page made at one generation is served again from memory
-- until the next one, whichever process (the server, `benchlog ingest`)
-- made the change, since the triggers bump it in the writer's transaction.
--
-- A submission's messages, results and near misses are only ever inserted
-- together with the submission (or, for results, with their run), whose own
-- trigger bumps the generation in the same transaction: their inserts need
-- no trigger of their own, which keeps a million result inserts cheap.
CREATE TABLE data_generation (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    generation  INTEGER NOT NULL
);
INSERT INTO data_generation (id, generation) VALUES (1, 0);

CREATE TRIGGER submissions_insert_generation AFTER INSERT ON submissions BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER submissions_update_generation AFTER UPDATE ON submissions BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER submissions_delete_generation AFTER DELETE ON submissions BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER messages_update_generation AFTER UPDATE ON messages BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER messages_delete_generation AFTER DELETE ON messages BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER runs_insert_generation AFTER INSERT ON runs BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER runs_update_generation AFTER UPDATE ON runs BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER runs_delete_generation AFTER DELETE ON runs BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER run_attrs_insert_generation AFTER INSERT ON run_attrs BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER run_attrs_update_generation AFTER UPDATE ON run_attrs BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER run_attrs_delete_generation AFTER DELETE ON run_attrs BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER results_update_generation AFTER UPDATE ON results BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER results_delete_generation AFTER DELETE ON results BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER unparsed_update_generation AFTER UPDATE ON unparsed BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER unparsed_delete_generation AFTER DELETE ON unparsed BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER run_edits_insert_generation AFTER INSERT ON run_edits BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER run_edits_update_generation AFTER UPDATE ON run_edits BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER run_edits_delete_generation AFTER DELETE ON run_edits BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER mails_insert_generation AFTER INSERT ON mails BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER mails_update_generation AFTER UPDATE ON mails BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER mails_delete_generation AFTER DELETE ON mails BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER run_quotes_insert_generation AFTER INSERT ON run_quotes BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER run_quotes_update_generation AFTER UPDATE ON run_quotes BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
CREATE TRIGGER run_quotes_delete_generation AFTER DELETE ON run_quotes BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;
