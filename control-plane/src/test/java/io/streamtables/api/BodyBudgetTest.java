package io.streamtables.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.streamtables.auth.SigV4Authenticator.Claim;
import org.junit.jupiter.api.Test;

class BodyBudgetTest {

    static final Claim ALICE = new Claim("ALICE", false);
    static final Claim BOB = new Claim("BOB", false);
    static final Claim STAGES = new Claim("STAGES", true);
    static final Claim ANYONE = new Claim(null, false);

    @Test
    void aKeyTakesAtMostItsShareAndOthersGoOn() {
        BodyBudget budget = new BodyBudget(100, 40, 20);
        assertNull(budget.take(ALICE, 30));
        assertEquals(BodyBudget.Refusal.KEY, budget.take(ALICE, 11));
        assertNull(budget.take(ALICE, 10));
        assertNull(budget.take(BOB, 40));
        assertEquals(40 + 40, budget.held());
        budget.give(ALICE, 30);
        assertNull(budget.take(ALICE, 30), "what a body gave back is the key's again");
    }

    @Test
    void otherCallersLeaveTheStagesReserve() {
        BodyBudget budget = new BodyBudget(100, 40, 20);
        assertNull(budget.take(ALICE, 40));
        assertNull(budget.take(BOB, 40));
        assertEquals(BodyBudget.Refusal.ALL, budget.take(new Claim("CAROL", false), 1), "80 of 100: the rest is the stages'");
        assertNull(budget.take(STAGES, 20));
        assertEquals(BodyBudget.Refusal.ALL, budget.take(STAGES, 1), "the whole budget is taken");
        budget.give(STAGES, 20);
        budget.give(BOB, 40);
        assertNull(budget.take(new Claim("CAROL", false), 40));
    }

    @Test
    void withoutKeysOnlyTheWholeBudgetCounts() {
        BodyBudget budget = new BodyBudget(100, 40, 20);
        assertNull(budget.take(ANYONE, 80));
        assertEquals(BodyBudget.Refusal.ALL, budget.take(ANYONE, 1));
    }

    @Test
    void sharesThatCannotFitAreRefusedAtStartUp() {
        assertThrows(IllegalArgumentException.class, () -> new BodyBudget(100, 101, 20));
        assertThrows(IllegalArgumentException.class, () -> new BodyBudget(100, 40, 100));
    }
}
