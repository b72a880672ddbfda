/**
 * The public OCF types (src/ocf/types.ts, plain TypeScript) are exactly the types the runtime schemas
 * infer: checked by the type checker (`npm run typecheck`), so a schema change that is not mirrored in
 * the public types, or the other way round, fails the build.
 */
import { describe, expectTypeOf, it } from "vitest";
import type * as files from "../../../src/ocf/files.js";
import type * as objects from "../../../src/ocf/objects.js";
import type * as primitives from "../../../src/ocf/primitives.js";
import type * as schemas from "../../../src/ocf/schemas.js";
import type * as transactions from "../../../src/ocf/transactions.js";
import type * as Public from "../../../src/ocf/types.js";

describe("the public OCF types", () => {
  it("equal the types the zod schemas infer, one by one", () => {
    expectTypeOf<Public.OcfIssuer>().toEqualTypeOf<objects.OcfIssuer>();
    expectTypeOf<Public.OcfStakeholder>().toEqualTypeOf<objects.OcfStakeholder>();
    expectTypeOf<Public.OcfStockClass>().toEqualTypeOf<objects.OcfStockClass>();
    expectTypeOf<Public.OcfStockClassConversionRight>().toEqualTypeOf<objects.OcfStockClassConversionRight>();
    expectTypeOf<Public.OcfStockLegendTemplate>().toEqualTypeOf<objects.OcfStockLegendTemplate>();
    expectTypeOf<Public.OcfValuation>().toEqualTypeOf<objects.OcfValuation>();
    expectTypeOf<Public.OcfVestingCondition>().toEqualTypeOf<objects.OcfVestingCondition>();
    expectTypeOf<Public.OcfVestingConditionPortion>().toEqualTypeOf<objects.OcfVestingConditionPortion>();
    expectTypeOf<Public.OcfVestingPeriod>().toEqualTypeOf<objects.OcfVestingPeriod>();
    expectTypeOf<Public.OcfVestingTerms>().toEqualTypeOf<objects.OcfVestingTerms>();
    expectTypeOf<Public.OcfVestingTrigger>().toEqualTypeOf<objects.OcfVestingTrigger>();
    expectTypeOf<Public.OcfCompensationType>().toEqualTypeOf<transactions.OcfCompensationType>();
    expectTypeOf<Public.OcfEquityCompensationAcceptance>().toEqualTypeOf<transactions.OcfEquityCompensationAcceptance>();
    expectTypeOf<Public.OcfEquityCompensationCancellation>().toEqualTypeOf<transactions.OcfEquityCompensationCancellation>();
    expectTypeOf<Public.OcfEquityCompensationIssuance>().toEqualTypeOf<transactions.OcfEquityCompensationIssuance>();
    expectTypeOf<Public.OcfEquityCompensationRelease>().toEqualTypeOf<transactions.OcfEquityCompensationRelease>();
    expectTypeOf<Public.OcfEquityCompensationRetraction>().toEqualTypeOf<transactions.OcfEquityCompensationRetraction>();
    expectTypeOf<Public.OcfEquityCompensationTransfer>().toEqualTypeOf<transactions.OcfEquityCompensationTransfer>();
    expectTypeOf<Public.OcfStockAcceptance>().toEqualTypeOf<transactions.OcfStockAcceptance>();
    expectTypeOf<Public.OcfStockCancellation>().toEqualTypeOf<transactions.OcfStockCancellation>();
    expectTypeOf<Public.OcfStockIssuance>().toEqualTypeOf<transactions.OcfStockIssuance>();
    expectTypeOf<Public.OcfStockPlanReturnToPool>().toEqualTypeOf<transactions.OcfStockPlanReturnToPool>();
    expectTypeOf<Public.OcfStockRepurchase>().toEqualTypeOf<transactions.OcfStockRepurchase>();
    expectTypeOf<Public.OcfStockRetraction>().toEqualTypeOf<transactions.OcfStockRetraction>();
    expectTypeOf<Public.OcfStockTransfer>().toEqualTypeOf<transactions.OcfStockTransfer>();
    expectTypeOf<Public.OcfTransaction>().toEqualTypeOf<transactions.OcfTransaction>();
    expectTypeOf<Public.OcfVestingAcceleration>().toEqualTypeOf<transactions.OcfVestingAcceleration>();
    expectTypeOf<Public.OcfVestingEvent>().toEqualTypeOf<transactions.OcfVestingEvent>();
    expectTypeOf<Public.OcfVestingStart>().toEqualTypeOf<transactions.OcfVestingStart>();
    expectTypeOf<Public.OcfAddress>().toEqualTypeOf<primitives.OcfAddress>();
    expectTypeOf<Public.OcfContactInfo>().toEqualTypeOf<primitives.OcfContactInfo>();
    expectTypeOf<Public.OcfContactInfoWithoutName>().toEqualTypeOf<primitives.OcfContactInfoWithoutName>();
    expectTypeOf<Public.OcfEmail>().toEqualTypeOf<primitives.OcfEmail>();
    expectTypeOf<Public.OcfFileReference>().toEqualTypeOf<primitives.OcfFileReference>();
    expectTypeOf<Public.OcfMonetary>().toEqualTypeOf<primitives.OcfMonetary>();
    expectTypeOf<Public.OcfName>().toEqualTypeOf<primitives.OcfName>();
    expectTypeOf<Public.OcfNumeric>().toEqualTypeOf<primitives.OcfNumeric>();
    expectTypeOf<Public.OcfPhone>().toEqualTypeOf<primitives.OcfPhone>();
    expectTypeOf<Public.OcfSecurityExemption>().toEqualTypeOf<primitives.OcfSecurityExemption>();
    expectTypeOf<Public.OcfShareNumberRange>().toEqualTypeOf<primitives.OcfShareNumberRange>();
    expectTypeOf<Public.OcfTaxId>().toEqualTypeOf<primitives.OcfTaxId>();
    expectTypeOf<Public.OcfTerminationWindow>().toEqualTypeOf<primitives.OcfTerminationWindow>();
    expectTypeOf<Public.OcfVesting>().toEqualTypeOf<primitives.OcfVesting>();
    expectTypeOf<Public.OcfFileType>().toEqualTypeOf<files.OcfFileType>();
    expectTypeOf<Public.OcfItemsFileType>().toEqualTypeOf<files.OcfItemsFileType>();
    expectTypeOf<Public.OcfManifest>().toEqualTypeOf<files.OcfManifest>();
    expectTypeOf<Public.OcfManifestFileListKey>().toEqualTypeOf<files.OcfManifestFileListKey>();
    expectTypeOf<Public.OcfStakeholdersFile>().toEqualTypeOf<files.OcfStakeholdersFile>();
    expectTypeOf<Public.OcfStockClassesFile>().toEqualTypeOf<files.OcfStockClassesFile>();
    expectTypeOf<Public.OcfStockLegendTemplatesFile>().toEqualTypeOf<files.OcfStockLegendTemplatesFile>();
    expectTypeOf<Public.OcfTransactionsFile>().toEqualTypeOf<files.OcfTransactionsFile>();
    expectTypeOf<Public.OcfValuationsFile>().toEqualTypeOf<files.OcfValuationsFile>();
    expectTypeOf<Public.OcfVestingTermsFile>().toEqualTypeOf<files.OcfVestingTermsFile>();
  });

  it("match where the schemas' type is an intersection (the one-of rules of a stock plan) and the public one is spelled out", () => {
    // Each way assignable, with the same keys: the same values fit both.
    expectTypeOf<Public.OcfStockPlan>().toExtend<objects.OcfStockPlan>();
    expectTypeOf<objects.OcfStockPlan>().toExtend<Public.OcfStockPlan>();
    expectTypeOf<keyof Public.OcfStockPlan>().toEqualTypeOf<keyof objects.OcfStockPlan>();
    expectTypeOf<Public.OcfStockPlansFile>().toExtend<files.OcfStockPlansFile>();
    expectTypeOf<files.OcfStockPlansFile>().toExtend<Public.OcfStockPlansFile>();
    expectTypeOf<Public.OcfFile>().toExtend<files.OcfFile>();
    expectTypeOf<files.OcfFile>().toExtend<Public.OcfFile>();
    expectTypeOf<Public.OcfObject>().toExtend<schemas.OcfObject>();
    expectTypeOf<schemas.OcfObject>().toExtend<Public.OcfObject>();
  });
});
