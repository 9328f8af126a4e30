import { expect, test } from "@playwright/test";
import { zipOf } from "../helpers/zip";
import { signInAs } from "./pages";

// The Skills page on the production build: an admin imports an Agent-Skills zip, sees it listed, opens it (its
// instructions, description and files), and saves a new version from the editor. The skill is archived at the
// end, so other specs' drawer turns are not offered it.
test.use({ viewport: { width: 1280, height: 800 } });

// Its own name each run: an import of an existing name would make a new version.
const NAME = `e2e-refunds-${Date.now().toString(36)}`;

test("an admin imports a skill zip, sees it listed, opens it and saves version 2", async ({
  page,
  baseURL,
}) => {
  await signInAs(page, "admin@acme.test");
  await page.goto("/dev/agent/skills");
  await expect(page.getByTestId("skills-page")).toBeVisible();

  const zip = zipOf([
    {
      path: `${NAME}/SKILL.md`,
      content: `---\nname: ${NAME}\ndescription: How to answer refund questions\n---\n# Refunds\n\nCheck the order date first.\n`,
    },
    { path: `${NAME}/reference/policy.md`, content: "Refunds within 30 days of delivery." },
  ]);
  await page
    .getByTestId("skill-import")
    .setInputFiles({ name: `${NAME}.zip`, mimeType: "application/zip", buffer: zip });
  await expect(page.getByTestId("skill-imported")).toContainText(NAME);
  const row = page.getByTestId("skill-row").filter({ hasText: NAME });
  await expect(row).toContainText("How to answer refund questions");

  // A bad zip says why, on the page.
  await page
    .getByTestId("skill-import")
    .setInputFiles({ name: "bad.zip", mimeType: "application/zip", buffer: Buffer.from("not a zip") });
  await expect(page.getByTestId("skill-import-error")).toContainText("not a zip file");

  await row.getByRole("link", { name: NAME }).click();
  await expect(page).toHaveURL((url) => url.pathname === `/dev/agent/skills/${NAME}`);
  await expect(page.getByTestId("skill-shown-instructions")).toContainText("Check the order date first.");
  await expect(page.getByTestId("skill-shown-description")).toContainText("How to answer refund questions");
  await page.getByTestId("skill-file").filter({ hasText: "reference/policy.md" }).click();
  await expect(page.getByTestId("skill-file-content")).toContainText("Refunds within 30 days");

  await page.getByTestId("skill-edit").click();
  await page.getByTestId("skill-instructions").fill("# Refunds\n\nCheck the order date, then the amount.");
  await page.getByTestId("skill-save").click();
  await expect(page.getByTestId("version-item")).toHaveCount(2);
  await expect(page.getByTestId("skill-shown-instructions")).toContainText("then the amount");
  // The new version kept the files.
  await expect(page.getByTestId("skill-file")).toHaveText(["reference/policy.md"]);

  const archived = await page.request.delete(`/api/skills/${NAME}`, { headers: { origin: baseURL ?? "" } });
  expect(archived.status()).toBe(200);
});
