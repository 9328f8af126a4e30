import { INPUT } from "@/components/admin-kit/ui";

/** An input of a width given beside it (INPUT fills its container). */
export const INPUT_FIXED = INPUT.replace("w-full ", "");
