CREATE TABLE "score_daily" (
	"tenant_id" uuid NOT NULL,
	"day" date NOT NULL,
	"model" text NOT NULL,
	"name" text NOT NULL,
	"total" double precision DEFAULT 0 NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "score_daily_tenant_id_day_model_name_pk" PRIMARY KEY("tenant_id","day","model","name")
);
--> statement-breakpoint
-- Kept in the statement that writes a score: its old value leaves its line, its new value joins its line. A score
-- counts when it is on a turn whose start and model are known and has a value (categories have no mean).
CREATE FUNCTION "score_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD."turn_id" IS NOT NULL AND OLD."value" IS NOT NULL AND OLD."turn_model" IS NOT NULL
      AND OLD."turn_started_at" IS NOT NULL THEN
    UPDATE "score_daily" SET "total" = "total" - OLD."value", "count" = "count" - 1
      WHERE "tenant_id" = OLD."tenant_id" AND "day" = (OLD."turn_started_at" AT TIME ZONE 'UTC')::date
        AND "model" = OLD."turn_model" AND "name" = OLD."name";
  END IF;
  IF TG_OP <> 'DELETE' AND NEW."turn_id" IS NOT NULL AND NEW."value" IS NOT NULL AND NEW."turn_model" IS NOT NULL
      AND NEW."turn_started_at" IS NOT NULL THEN
    INSERT INTO "score_daily" AS d ("tenant_id", "day", "model", "name", "total", "count")
      VALUES (NEW."tenant_id", (NEW."turn_started_at" AT TIME ZONE 'UTC')::date, NEW."turn_model", NEW."name", NEW."value", 1)
      ON CONFLICT ("tenant_id", "day", "model", "name")
      DO UPDATE SET "total" = d."total" + excluded."total", "count" = d."count" + 1;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "score_daily_trigger" AFTER INSERT OR UPDATE OR DELETE ON "score"
  FOR EACH ROW EXECUTE FUNCTION "score_daily_apply"();--> statement-breakpoint
-- The scores already given.
INSERT INTO "score_daily" ("tenant_id", "day", "model", "name", "total", "count")
  SELECT "tenant_id", ("turn_started_at" AT TIME ZONE 'UTC')::date, "turn_model", "name", sum("value"), count(*)
  FROM "score"
  WHERE "turn_id" IS NOT NULL AND "value" IS NOT NULL AND "turn_model" IS NOT NULL AND "turn_started_at" IS NOT NULL
  GROUP BY 1, 2, 3, 4;
